import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  canMove,
  DELIVERY_STAGES,
  DELIVERY_TRANSITIONS,
  isPermanent,
  isReplayable,
  isSettled,
  rateWait,
  recordsInStage,
  statusOfJobState,
} from '../../../src/domain/deliveries/lifecycle.js';
import { DeliveryError, DependencyError, HeraldError } from '../../../src/errors/index.js';

/** The worker's decisions, without Redis or a store. */
describe('delivery lifecycle', () => {
  it('moves nothing out of sent; a dead message only back to queued (replay) or dead again', () => {
    expect(DELIVERY_TRANSITIONS.sent).toEqual([]);
    expect(canMove('sent', 'queued')).toBe(false);
    expect(canMove('sent', 'failed')).toBe(false);
    expect(canMove('failed', 'queued')).toBe(true);
    expect(canMove('failed', 'sent')).toBe(false);
    expect(canMove('failed', 'rate_limited')).toBe(false);
    expect(canMove('rate_limited', 'sent')).toBe(true);
    expect(canMove(null, 'sent')).toBe(true);
    // Settled: no further run changes it; only a dead one may be replayed.
    expect((['queued', 'rate_limited', 'sent', 'failed'] as const).map(isSettled)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect((['queued', 'rate_limited', 'sent', 'failed'] as const).map(isReplayable)).toEqual([
      false,
      false,
      false,
      true,
    ]);
  });

  it('moves nothing out of folded (carried by another message), which is settled and not replayable', () => {
    expect(DELIVERY_TRANSITIONS.folded).toEqual([]);
    expect(canMove('queued', 'folded')).toBe(true);
    expect(canMove('rate_limited', 'folded')).toBe(true);
    expect(canMove('folded', 'sent')).toBe(false);
    expect(canMove('failed', 'folded')).toBe(false);
    expect(isSettled('folded')).toBe(true);
    expect(isReplayable('folded')).toBe(false);
  });

  it('reads a job still in the queue as queued, and says nothing for no job', () => {
    for (const s of ['waiting', 'waiting-children', 'prioritized', 'delayed', 'active'] as const) {
      expect(statusOfJobState(s)).toBe('queued');
    }
    expect(statusOfJobState('completed')).toBe('sent');
    expect(statusOfJobState('failed')).toBe('failed');
    expect(statusOfJobState('unknown')).toBeUndefined();
  });

  it('retries exactly the retryable reasons (and 5xx), while attempts are left', () => {
    const relay5xx = new DeliveryError('UPSTREAM_UNAVAILABLE', { detail: 'HTTP 502' });
    const noPermission = new DeliveryError('NO_SEND_PERMISSION', { permission: 'send' });
    const render = new HeraldError('TEMPLATE_RENDER', { line: 1, column: 2, detail: 'x' });
    const down = new DependencyError('redis');
    expect([relay5xx, noPermission, render, down].map(isPermanent)).toEqual([false, true, true, false]);
    expect(afterFailure(relay5xx, 'UPSTREAM_UNAVAILABLE', 1, 5, 1_000, 250)).toEqual({
      kind: 'retry',
      reason: 'UPSTREAM_UNAVAILABLE',
      at: 1_250,
    });
    expect(afterFailure(relay5xx, 'UPSTREAM_UNAVAILABLE', 5, 5, 1_000, 250)).toEqual({
      kind: 'fail',
      reason: 'UPSTREAM_UNAVAILABLE',
    });
    expect(afterFailure(noPermission, 'NO_SEND_PERMISSION', 1, 5, 1_000, 250)).toEqual({
      kind: 'fail',
      reason: 'NO_SEND_PERMISSION',
    });
    expect(afterFailure(render, 'TEMPLATE_RENDER', 1, 5, 1_000, 250).kind).toBe('fail');
  });

  it("retries a render that ran out of the engine's clock, not one that ran out of steps", () => {
    const clock = new HeraldError('TEMPLATE_LIMIT', { limit: 'maxRenderMs', detail: 'x' });
    const steps = new HeraldError('TEMPLATE_LIMIT', { limit: 'maxSteps', detail: 'x' });
    const hard = new HeraldError('TEMPLATE_LIMIT', { limit: 'time', detail: 'x' });
    expect([clock, steps, hard].map(isPermanent)).toEqual([false, true, true]);
    expect(afterFailure(clock, 'TEMPLATE_LIMIT', 1, 5, 1_000, 250).kind).toBe('retry');
    expect(afterFailure(clock, 'TEMPLATE_LIMIT', 5, 5, 1_000, 250).kind).toBe('fail');
  });

  const base = {
    now: 10_000,
    queuedAt: 9_000,
    patienceMs: 60_000,
    leadMs: 500,
    minWaitMs: 10,
    spread: 1,
    random: () => 0.5,
  };

  it("waits a reserved turn as the bucket says, back early by the lead; a 429's wait is spread", () => {
    expect(rateWait({ ...base, source: 'bucket', waitMs: 2_000 })).toEqual({
      kind: 'wait',
      at: 12_000,
      wakeAt: 11_500,
    });
    // Never back before the shortest wait.
    expect(rateWait({ ...base, source: 'bucket', waitMs: 200 })).toEqual({
      kind: 'wait',
      at: 10_200,
      wakeAt: 10_010,
    });
    expect(rateWait({ ...base, source: 'upstream', waitMs: 2_000 })).toEqual({
      kind: 'wait',
      at: 13_000,
      wakeAt: 13_000,
    });
    expect(rateWait({ ...base, source: 'bucket', waitMs: 0 })).toEqual({
      kind: 'wait',
      at: 10_010,
      wakeAt: 10_010,
    });
  });

  it('fails a 429 whose wait would end past the patience from when the job was queued', () => {
    expect(rateWait({ ...base, source: 'upstream', waitMs: 40_000 })).toEqual({
      kind: 'fail',
      reason: 'UPSTREAM_RATE_LIMITED',
    });
    // The bot's own bucket has no patience: its turn is reserved.
    expect(rateWait({ ...base, source: 'bucket', waitMs: 120_000 }).kind).toBe('wait');
  });

  it('names the stages a history entry or the delivery list uses, and which records each lists', () => {
    expect(DELIVERY_STAGES).toEqual([
      'queued',
      'rate_limited',
      'retrying',
      'sent',
      'folded',
      'failed',
      'replayed',
    ]);
    expect(recordsInStage('queued')).toEqual({ status: 'queued', waiting: false });
    expect(recordsInStage('retrying')).toEqual({ status: 'queued', waiting: true });
    expect(recordsInStage('rate_limited')).toEqual({ status: 'rate_limited' });
    expect(recordsInStage('sent')).toEqual({ status: 'sent' });
    expect(recordsInStage('folded')).toEqual({ status: 'folded' });
    expect(recordsInStage('failed')).toEqual({ status: 'failed' });
    expect(recordsInStage('replayed')).toEqual({ replayed: true });
    expect(recordsInStage('any')).toEqual({});
  });
});
