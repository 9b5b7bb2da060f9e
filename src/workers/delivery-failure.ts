import { DeliveryFailedError } from '../domain/deliveries/errors/delivery-failed-error.js';

/** A permanent delivery failure with its reason code (DeliveryFailedError, shorter). */
export const fail = (
  reason: string,
  key: ConstructorParameters<typeof DeliveryFailedError>[1],
  params = {},
) => new DeliveryFailedError(reason, key, params);
