import { describe, expect, it } from 'vitest';
import { deliveryEvent } from '../../../src/domain/deliveries/records.js';

/** History entries as records.ts writes them, without a store. */
describe('delivery history entries', () => {
  it('carries the stage and time, and only the fields that are set', () => {
    expect(deliveryEvent('replayed', 5)).toEqual({ status: 'replayed', at: 5 });
    expect(
      deliveryEvent('retrying', 5, { reason: 'RELAY_UNAVAILABLE', code: 50310, retry_at: 9, attempt: 1 }),
    ).toEqual({
      status: 'retrying',
      at: 5,
      reason: 'RELAY_UNAVAILABLE',
      code: 50310,
      retry_at: 9,
      attempt: 1,
    });
    const failed = deliveryEvent('failed', 7, { reason: null, code: null, retry_at: null, attempt: 0 });
    expect(failed).toEqual({ status: 'failed', at: 7, attempt: 0 });
    expect(Object.keys(failed)).toEqual(['status', 'at', 'attempt']);
  });
});
