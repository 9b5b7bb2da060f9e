import { describe, expect, it } from 'vitest';
import { BACKOFF_MAX_MS, deliveryBackoffMs } from '../../src/workers/backoff.js';

describe('deliveryBackoffMs', () => {
  it('doubles per attempt, between half and all of the ceiling', () => {
    expect([1, 2, 3, 4].map((n) => deliveryBackoffMs(n, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => deliveryBackoffMs(n, () => 0.999999))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('starts from the configured base (RETRY_BASE_MS)', () => {
    expect([1, 2, 3].map((n) => deliveryBackoffMs(n, () => 0.999999, 50))).toEqual([50, 100, 200]);
  });

  it('is capped', () => {
    expect(deliveryBackoffMs(30, () => 0.999999)).toBe(BACKOFF_MAX_MS);
  });
});
