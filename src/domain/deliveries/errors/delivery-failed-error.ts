import type { ErrorKey, ErrorParams } from '../../../errors/index.js';
import { HeraldError } from '../../../errors/index.js';

/**
 * A pipe message that can never be delivered as it stands (permission gone, template deleted,
 * relay refused it...). The worker records `reason` and fails the job without retrying.
 */
export class DeliveryFailedError extends HeraldError {
  override readonly name = 'DeliveryFailedError';
  /** Reason code (src/domain/deliveries/reasons.ts, or a render error's key). */
  readonly reason: string;

  constructor(
    reason: string,
    key: ErrorKey,
    params: ErrorParams = {},
    options: { data?: Readonly<Record<string, unknown>>; cause?: unknown } = {},
  ) {
    super(key, params, options);
    this.reason = reason;
  }
}
