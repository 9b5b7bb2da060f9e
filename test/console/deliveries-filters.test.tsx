import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FILTERS,
  deliveriesPath,
  filtersFromQuery,
  filtersToApi,
  filtersToQuery,
  KNOWN_REASONS,
  localInputToMs,
  msToLocalInput,
  nextBatchLimit,
  REPLAY_BATCH_MAX,
  replayBatchFilter,
} from '../../console/src/deliveries.ts';

import { DELIVERY_REASONS } from '../../src/errors/index.js';

const q = (s: string) => new URLSearchParams(s);

describe("the reason filter's suggestions", () => {
  it('offer every reason a delivery can be recorded with', () => {
    const offered: readonly string[] = KNOWN_REASONS;
    expect(Object.keys(DELIVERY_REASONS).filter((r) => !offered.includes(r))).toEqual([]);
  });
});

describe('delivery filters in the console URL', () => {
  it('opens on every status with no query', () => {
    expect(filtersFromQuery(q(''))).toEqual(DEFAULT_FILTERS);
    expect(filtersToQuery(DEFAULT_FILTERS)).toBe('');
    expect(deliveriesPath({})).toBe('deliveries');
  });

  it('reads the overview link for dead letters by reason', () => {
    const f = filtersFromQuery(q('status=failed&reason=NO_SEND_PERMISSION'));
    expect(f).toEqual({ ...DEFAULT_FILTERS, status: 'failed', reason: 'NO_SEND_PERMISSION' });
    expect(deliveriesPath(f)).toBe('deliveries?status=failed&reason=NO_SEND_PERMISSION');
  });

  it('round-trips every field', () => {
    const f = {
      status: 'retrying' as const,
      bot_id: '17000000001',
      pipe_id: '17000000002',
      reason: 'UPSTREAM_TIMEOUT',
      since: 1_700_000_000_000,
      until: 1_700_000_600_000,
      page: 3,
    };
    const s = filtersToQuery(f);
    expect(s).toBe(
      'status=retrying&bot_id=17000000001&pipe_id=17000000002&reason=UPSTREAM_TIMEOUT&since=1700000000000&until=1700000600000&page=3',
    );
    expect(filtersFromQuery(q(s))).toEqual(f);
  });

  it('drops values the API would refuse instead of failing the page', () => {
    const f = filtersFromQuery(
      q('status=exploded&reason=not-a-code&page=0&since=yesterday&until=-5&bot_id=' + 'x'.repeat(65)),
    );
    expect(f).toEqual(DEFAULT_FILTERS);
    expect(filtersFromQuery(q('page=abc')).page).toBe(1);
    expect(filtersFromQuery(q('reason=%20STALLED%20')).reason).toBe('STALLED');
  });

  it('always names the status for the API, whose own default is failed', () => {
    expect(filtersToApi(DEFAULT_FILTERS, 25)).toEqual({ status: 'any', page: 1, page_size: 25 });
    expect(
      filtersToApi({ ...DEFAULT_FILTERS, status: 'failed', pipe_id: '9', since: 5, until: 6, page: 2 }, 25),
    ).toEqual({ status: 'failed', pipe_id: '9', since: 5, until: 6, page: 2, page_size: 25 });
  });
});

describe('bulk replay selection', () => {
  const failed = { ...DEFAULT_FILTERS, status: 'failed' as const };

  it('replays by bot, pipe and reason, only from the dead letters', () => {
    expect(replayBatchFilter({ ...failed, reason: 'NO_SEND_PERMISSION', bot_id: '1', page: 4 })).toEqual({
      ok: true,
      body: { bot_id: '1', reason: 'NO_SEND_PERMISSION' },
    });
    expect(replayBatchFilter({ ...DEFAULT_FILTERS, reason: 'STALLED' })).toEqual({
      ok: false,
      why: 'not-failed',
    });
  });

  it('refuses what the route cannot select by', () => {
    expect(replayBatchFilter(failed)).toEqual({ ok: false, why: 'no-selector' });
    expect(replayBatchFilter({ ...failed, pipe_id: '2', since: 1 })).toEqual({
      ok: false,
      why: 'time-range',
    });
    expect(replayBatchFilter({ ...failed, pipe_id: '2', until: 1 })).toEqual({
      ok: false,
      why: 'time-range',
    });
  });

  it('sizes batches to the confirmed count, at most the route maximum', () => {
    expect(nextBatchLimit(1200, 0)).toBe(REPLAY_BATCH_MAX);
    expect(nextBatchLimit(1200, 1000)).toBe(200);
    expect(nextBatchLimit(3, 0)).toBe(3);
    expect(nextBatchLimit(3, 3)).toBe(0);
    expect(nextBatchLimit(3, 5)).toBe(0);
  });
});

describe('time range inputs', () => {
  it('reads and writes datetime-local values in local time', () => {
    const ms = new Date(2026, 10, 25, 9, 5).getTime();
    expect(msToLocalInput(ms)).toBe('2026-11-25T09:05');
    expect(localInputToMs('2026-11-25T09:05')).toBe(ms);
    expect(localInputToMs('2026-11-25T09:05:30')).toBe(ms + 30_000);
    expect(localInputToMs('')).toBeNull();
    expect(localInputToMs('tomorrow')).toBeNull();
    expect(msToLocalInput(null)).toBe('');
  });
});
