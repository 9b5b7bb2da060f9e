import { CATALOGUE, type ErrorKey } from '../../errors/index.js';

/**
 * Reason codes recorded on a failed (or retried) pipe message: stable strings, listed in
 * docs/delivery.md. A render failure records the render error's own catalogue key instead
 * (TEMPLATE_COMPILE, TEMPLATE_RENDER, TEMPLATE_LIMIT, TEMPLATE_FEATURE_UNAVAILABLE, CARD_SYNTAX,
 * CARD_INVALID, MESSAGE_TOO_LONG), with its numeric code and where in `detail`: line, column
 * and excerpt (of the template, or for CARD_SYNTAX and CARD_INVALID of the rendered card text);
 * for CARD_INVALID also the path of the offending value and the rule it breaks.
 */
export const REASON = {
  /** The pipe was disabled after the message was accepted. */
  PIPE_DISABLED: 'PIPE_DISABLED',
  /** The pipe was deleted after the message was accepted. */
  PIPE_DELETED: 'PIPE_DELETED',
  /** The bot was disabled or deleted after acceptance. */
  BOT_UNAVAILABLE: 'BOT_UNAVAILABLE',
  /** The pipe's template was deleted. */
  TEMPLATE_DELETED: 'TEMPLATE_DELETED',
  /** The pipe's template is banned. */
  TEMPLATE_BANNED: 'TEMPLATE_BANNED',
  /** The target channel no longer exists. */
  CHANNEL_NOT_FOUND: 'CHANNEL_NOT_FOUND',
  /** The target is not a text channel of the pipe's server. */
  CHANNEL_NOT_TEXT: 'CHANNEL_NOT_TEXT',
  /** The bot lacks view-channel in the target channel. */
  NO_VIEW_PERMISSION: 'NO_VIEW_PERMISSION',
  /** The bot lacks send-messages in the target channel. */
  NO_SEND_PERMISSION: 'NO_SEND_PERMISSION',
  /** The temporary message's target user is not a member of the server. */
  TEMP_TARGET_NOT_MEMBER: 'TEMP_TARGET_NOT_MEMBER',
  /** A pipe without template got input that is not message text. */
  INPUT_INVALID: 'INPUT_INVALID',
  /** The bot's sink is relay but it has no relay URL or token. */
  RELAY_NOT_CONFIGURED: 'RELAY_NOT_CONFIGURED',
  /** The relay target answered a 4xx other than 429. */
  UPSTREAM_REJECTED: 'UPSTREAM_REJECTED',
  /**
   * The relay target still answered 429 RELAY_RATE_LIMIT_PATIENCE_MS after the message was
   * queued (429s spend no attempt; this bounds them).
   */
  UPSTREAM_RATE_LIMITED: 'UPSTREAM_RATE_LIMITED',
  /** The relay target answered 5xx (retried until the attempts ran out). */
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  /** The relay target did not answer within RELAY_TIMEOUT_MS (retried). */
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  /** The relay target refused or dropped the connection (retried). */
  UPSTREAM_UNREACHABLE: 'UPSTREAM_UNREACHABLE',
  /** The database or Redis did not answer (retried). */
  DEPENDENCY_DOWN: 'DEPENDENCY_DOWN',
  /** Worker processes died while holding the message more than MAX_STALLED_COUNT times. */
  STALLED: 'STALLED',
  /**
   * An unexpected error (a bug); retried, then recorded with a generic message and an error id
   * (the error itself is in the worker's log under that id).
   */
  INTERNAL: 'INTERNAL',
} as const;

export type ReasonCode = (typeof REASON)[keyof typeof REASON];

const REASON_CODES: ReadonlySet<string> = new Set([...Object.values(REASON), ...Object.keys(CATALOGUE)]);

/**
 * Whether a text is a reason a failure can be recorded with: a REASON code, or the catalogue key
 * of a render error (as a dead job's failedReason is).
 */
export const isReasonCode = (text: string | undefined): text is string =>
  text !== undefined && REASON_CODES.has(text);

/** The catalogue entry each REASON is recorded with (the workers' `fail(reason, key)` pairs). */
const REASON_KEY: Readonly<Record<ReasonCode, ErrorKey>> = {
  PIPE_DISABLED: 'DELIVERY_PIPE_UNAVAILABLE',
  PIPE_DELETED: 'DELIVERY_PIPE_UNAVAILABLE',
  BOT_UNAVAILABLE: 'DELIVERY_BOT_UNAVAILABLE',
  TEMPLATE_DELETED: 'TEMPLATE_DELETED',
  TEMPLATE_BANNED: 'TEMPLATE_BANNED',
  CHANNEL_NOT_FOUND: 'DELIVERY_TARGET_INVALID',
  CHANNEL_NOT_TEXT: 'DELIVERY_TARGET_INVALID',
  NO_VIEW_PERMISSION: 'DELIVERY_NO_PERMISSION',
  NO_SEND_PERMISSION: 'DELIVERY_NO_PERMISSION',
  TEMP_TARGET_NOT_MEMBER: 'DELIVERY_TEMP_TARGET_INVALID',
  INPUT_INVALID: 'DELIVERY_INPUT_INVALID',
  RELAY_NOT_CONFIGURED: 'DELIVERY_UPSTREAM_REJECTED',
  UPSTREAM_REJECTED: 'DELIVERY_UPSTREAM_REJECTED',
  UPSTREAM_RATE_LIMITED: 'DELIVERY_UPSTREAM_RATE_LIMITED',
  UPSTREAM_UNAVAILABLE: 'DELIVERY_UPSTREAM_UNAVAILABLE',
  UPSTREAM_TIMEOUT: 'DELIVERY_UPSTREAM_UNAVAILABLE',
  UPSTREAM_UNREACHABLE: 'DELIVERY_UPSTREAM_UNAVAILABLE',
  DEPENDENCY_DOWN: 'DEPENDENCY_DOWN',
  STALLED: 'DELIVERY_STALLED',
  INTERNAL: 'DELIVERY_INTERNAL',
};

/** The catalogue entry a reason code is recorded with: its REASON_KEY, or a render error's own key. */
export function reasonKey(reason: string): ErrorKey | undefined {
  if (Object.hasOwn(REASON_KEY, reason)) return REASON_KEY[reason as ReasonCode];
  return Object.hasOwn(CATALOGUE, reason) ? (reason as ErrorKey) : undefined;
}
