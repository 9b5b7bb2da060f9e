import type { ChainableCommander } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  COUNTS_EXPIRY_EVERY_MS,
  COUNTS_KEEP_MS,
  countIn,
  expiryNotSent,
  minuteOf,
  RECENT_MINUTES,
  summarize,
  windowMinutes,
} from '../../../src/domain/deliveries/recent-counts.js';
import { deliveryCountsKey } from '../../../src/redis/keys.js';

/** The overview's per-minute counts, without Redis. */
describe('recent delivery counts', () => {
  const now = Date.UTC(2025, 0, 1, 12, 30, 45, 500);

  it('buckets a time by its minute, and keeps a minute past the whole window', () => {
    expect(minuteOf(now)).toBe(Date.UTC(2025, 0, 1, 12, 30));
    expect(minuteOf(Date.UTC(2025, 0, 1, 12, 31))).toBe(Date.UTC(2025, 0, 1, 12, 31));
    expect(COUNTS_KEEP_MS).toBeGreaterThan(RECENT_MINUTES * 60_000);
  });

  it('reads the 15 minutes that end with the current one, oldest first', () => {
    const minutes = windowMinutes(now);
    expect(minutes).toHaveLength(15);
    expect(minutes.at(-1)).toBe(Date.UTC(2025, 0, 1, 12, 30));
    expect(minutes[0]).toBe(Date.UTC(2025, 0, 1, 12, 16));
    expect(new Set(minutes.map((m, i) => m - (minutes[i - 1] ?? m - 60_000)))).toEqual(new Set([60_000]));
  });

  it('adds up the minutes, with zeros for missing minutes and unreadable counts', () => {
    const minutes = windowMinutes(now);
    const rows = minutes.map(() => null as Array<string | null> | null);
    rows[0] = ['3', null, '1'];
    rows[14] = ['2', '4', 'x'];
    rows[7] = [null, '-2', '5'];
    const r = summarize(minutes, rows);
    expect(r).toMatchObject({ window_s: 900, sent: 5, failed: 4, retried: 6 });
    expect(r.per_minute).toHaveLength(15);
    expect(r.per_minute[0]).toEqual({ at: minutes[0], sent: 3, failed: 0, retried: 1 });
    expect(r.per_minute[14]).toEqual({ at: minutes[14], sent: 2, failed: 4, retried: 0 });
    expect(r.per_minute[1]).toEqual({ at: minutes[1], sent: 0, failed: 0, retried: 0 });
  });
});

describe('countIn', () => {
  /** A MULTI stand-in that records the commands queued on it. */
  const recorder = () => {
    const commands: string[] = [];
    const m = {
      hincrby: (key: string, field: string) => {
        commands.push(`hincrby ${key} ${field}`);
        return m;
      },
      pexpireat: (key: string, at: number) => {
        commands.push(`pexpireat ${key} ${at}`);
        return m;
      },
    };
    return { m: m as unknown as ChainableCommander, commands };
  };
  const prefix = `counts-${Math.random().toString(36).slice(2)}`;
  const minute = Date.UTC(2025, 0, 1, 12, 30);
  const key = deliveryCountsKey(prefix, minute);

  it("sets a minute's expiry with its first count, then once per COUNTS_EXPIRY_EVERY_MS", () => {
    const at = minute + 1_000;
    const counted = (now: number) => {
      const { m, commands } = recorder();
      countIn(m, prefix, 'sent', at, now);
      return commands;
    };
    const expiry = `pexpireat ${key} ${minute + COUNTS_KEEP_MS}`;
    expect(counted(at)).toEqual([`hincrby ${key} sent`, expiry]);
    // Before: every count carried the same expiry again (one command per delivered message).
    expect(counted(at + 10)).toEqual([`hincrby ${key} sent`]);
    expect(counted(at + COUNTS_EXPIRY_EVERY_MS - 1)).toEqual([`hincrby ${key} sent`]);
    // Sent again after a while: a MULTI that carried it may have failed.
    expect(counted(at + COUNTS_EXPIRY_EVERY_MS)).toEqual([`hincrby ${key} sent`, expiry]);
    // And at once after a write that carried it is known to have failed.
    expiryNotSent(key);
    expect(counted(at + COUNTS_EXPIRY_EVERY_MS + 1)).toEqual([`hincrby ${key} sent`, expiry]);
    // The next minute is its own hash, with its own expiry.
    const { m, commands } = recorder();
    countIn(m, prefix, 'failed', minute + 60_000, at + COUNTS_EXPIRY_EVERY_MS + 1);
    const next = deliveryCountsKey(prefix, minute + 60_000);
    expect(commands).toEqual([
      `hincrby ${next} failed`,
      `pexpireat ${next} ${minute + 60_000 + COUNTS_KEEP_MS}`,
    ]);
  });
});
