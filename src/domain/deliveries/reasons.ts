import { CATALOGUE, DELIVERY_REASONS, type ErrorKey, type ReasonCode } from '../../errors/index.js';

/** The reason codes by name (the table, with what each means, is DELIVERY_REASONS in the catalogue). */
export const REASON = Object.freeze(
  Object.fromEntries(Object.keys(DELIVERY_REASONS).map((code) => [code, code])),
) as { readonly [C in ReasonCode]: C };

export type { ReasonCode };

const REASON_CODES: ReadonlySet<string> = new Set([...Object.values(REASON), ...Object.keys(CATALOGUE)]);

/**
 * Whether a text is a reason a failure can be recorded with: a REASON code, or the catalogue key
 * of a render error (as a dead job's failedReason is).
 */
export const isReasonCode = (text: string | undefined): text is string =>
  text !== undefined && REASON_CODES.has(text);

/** The catalogue entry a reason code is recorded with: its DELIVERY_REASONS key, or a render error's own key. */
export function reasonKey(reason: string): ErrorKey | undefined {
  if (Object.hasOwn(DELIVERY_REASONS, reason)) return DELIVERY_REASONS[reason as ReasonCode].key;
  return Object.hasOwn(CATALOGUE, reason) ? (reason as ErrorKey) : undefined;
}
