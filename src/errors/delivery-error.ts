import { DELIVERY_REASONS, type ReasonCode } from './catalogue.js';
import { type ErrorParams, HeraldError } from './herald-error.js';

/**
 * A pipe message's delivery failed for `reason`: recorded with the reason's catalogue entry, and
 * retried with backoff when the reason is retryable (a relay 5xx, a timeout), failed for good
 * when it is not (a permission gone, a template deleted).
 */
export class DeliveryError extends HeraldError {
  override readonly name = 'DeliveryError';
  readonly reason: ReasonCode;
  readonly retryable: boolean;

  constructor(
    reason: ReasonCode,
    params: ErrorParams = {},
    options: { data?: Readonly<Record<string, unknown>>; cause?: unknown } = {},
  ) {
    const def = DELIVERY_REASONS[reason];
    super(def.key, params, options);
    this.reason = reason;
    this.retryable = def.retryable;
  }
}
