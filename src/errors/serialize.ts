import type { ErrorKey, ReasonCode } from './catalogue.js';
import { DeliveryError } from './delivery-error.js';
import { type ErrorParams, HeraldError } from './herald-error.js';

/**
 * An error as plain data, to cross a thread: Herald errors keep their catalogue key, parameters
 * and data, and a delivery error its reason as well. Anything else keeps its message only.
 */
export type SerializedError =
  | {
      readonly kind: 'herald';
      readonly key: ErrorKey;
      readonly params: ErrorParams;
      readonly data: Readonly<Record<string, unknown>> | null;
      /** Set for a DeliveryError. */
      readonly reason?: ReasonCode;
    }
  | { readonly kind: 'error'; readonly message: string };

export function serialize(err: unknown): SerializedError {
  if (err instanceof HeraldError) {
    return {
      kind: 'herald',
      key: err.key,
      params: { ...err.params },
      data: err.data ? { ...err.data } : null,
      ...(err instanceof DeliveryError ? { reason: err.reason } : {}),
    };
  }
  return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
}

/** The error `serialize` described, as an error again. */
export function revive(e: SerializedError): Error {
  if (e.kind === 'error') return new Error(e.message);
  const options = e.data ? { data: e.data } : {};
  return e.reason === undefined
    ? new HeraldError(e.key, e.params, options)
    : new DeliveryError(e.reason, e.params, options);
}
