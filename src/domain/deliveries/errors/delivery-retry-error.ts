import type { ErrorKey, ErrorParams } from '../../../errors/index.js';
import { HeraldError } from '../../../errors/index.js';

/**
 * A delivery attempt that failed for a reason that may pass (relay 5xx, timeout, connection
 * refused, database away). The job is retried with backoff; when the attempts run out the
 * message fails with this `reason`.
 */
export class DeliveryRetryError extends HeraldError {
  override readonly name = 'DeliveryRetryError';
  readonly reason: string;

  constructor(
    reason: string,
    key: ErrorKey,
    params: ErrorParams = {},
    options: { cause?: unknown; data?: Readonly<Record<string, unknown>> } = {},
  ) {
    super(key, params, options);
    this.reason = reason;
  }
}
