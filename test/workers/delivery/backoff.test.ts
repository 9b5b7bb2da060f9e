import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import {
  BACKOFF_MAX_MS,
  backoffJitter,
  deliveryBackoff,
  deliveryBackoffMs,
  retryDelayMs,
} from '../../../src/workers/delivery/backoff.js';

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

describe('the retry delay of one message', () => {
  it("is what BullMQ's strategy computes for its job, so retry_at can be recorded beforehand", () => {
    const strategy = deliveryBackoff(1_000);
    for (const id of ['m-1', 'm-2', '0b6c3c1e-5a4e-4f7e-9a51-3f1f2d7a9c11']) {
      for (const attempt of [1, 2, 3, 4]) {
        const job = { id } as unknown as Job;
        expect(strategy(attempt, 'herald-delivery', new Error('x'), job)).toBe(
          retryDelayMs(id, attempt, 1_000),
        );
      }
    }
  });

  it('keeps the jitter within [0, 1) and spreads messages over it', () => {
    const jitters = Array.from({ length: 2_000 }, (_, i) => backoffJitter(`msg-${i}`, 1));
    expect(Math.min(...jitters)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...jitters)).toBeLessThan(1);
    // Each tenth of the range gets some: not one value for all.
    const tenths = new Set(jitters.map((j) => Math.floor(j * 10)));
    expect(tenths.size).toBe(10);
    expect(backoffJitter('msg-1', 1)).not.toBe(backoffJitter('msg-1', 2));
  });
});
