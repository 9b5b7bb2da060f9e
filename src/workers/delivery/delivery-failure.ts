import { DeliveryError, type ErrorParams, type ReasonCode } from '../../errors/index.js';

/** A delivery failure with its reason code (new DeliveryError, shorter). */
export const fail = (reason: ReasonCode, params: ErrorParams = {}) => new DeliveryError(reason, params);
