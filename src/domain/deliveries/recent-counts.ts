import type { ChainableCommander, Redis } from 'ioredis';
import { asRedisDependencyError } from '../../ratelimit/redis-errors.js';
import { isCluster } from '../../redis/clients.js';
import { deliveryCountsKey } from '../../redis/keys.js';

/*
 * Messages sent, failed for good and retried, per minute, for the back office's overview: a hash
 * per minute in Redis that the worker bumps when it settles a run, in the same round trip as
 * what the settling already writes there where it writes anything (the sent log, a retry's wait
 * note). Each minute's hash expires once it is out of every window read.
 */

/** What is counted: a message sent, dead (failed for good), or put off for a retry. */
export type CountedOutcome = 'sent' | 'failed' | 'retried';

const OUTCOMES: readonly CountedOutcome[] = ['sent', 'failed', 'retried'];

const MINUTE_MS = 60_000;
/** The minutes the overview shows, the current one included. */
export const RECENT_MINUTES = 15;
/** How long a minute's counts are kept after it starts, in ms: past every window, with a margin. */
export const COUNTS_KEEP_MS = (RECENT_MINUTES + 5) * MINUTE_MS;

/** The start of the minute `at` (ms) falls in, in ms. */
export const minuteOf = (at: number): number => Math.floor(at / MINUTE_MS) * MINUTE_MS;

/**
 * How often this process sets a minute's expiry again while it counts in that minute, in ms.
 * The expiry is the same every time (the minute's start + COUNTS_KEEP_MS), so sending it with
 * every count was one Redis command per delivered message for nothing (`npm run bench:scale`).
 * Sent again after this long, not only once: a MULTI that carried it may have failed, and the
 * counts after it must not leave the hash without an expiry.
 */
export const COUNTS_EXPIRY_EVERY_MS = 5_000;

/** When this process last sent each minute hash's expiry (by key), on its own clock. */
const expirySent = new Map<string, number>();

/**
 * The hash a count at `at` (ms) goes to, and the expiry to send with it: the minute's, when this
 * process has not sent it in the last COUNTS_EXPIRY_EVERY_MS (else null). Call it once per count
 * sent (or per batch of counts of one minute): it notes the expiry as sent.
 */
export function countTarget(
  prefix: string,
  at: number,
  now: number = Date.now(),
): { key: string; expireAt: number | null } {
  const minute = minuteOf(at);
  const key = deliveryCountsKey(prefix, minute);
  const sent = expirySent.get(key);
  if (sent !== undefined && now - sent < COUNTS_EXPIRY_EVERY_MS && now >= sent)
    return { key, expireAt: null };
  if (sent === undefined) {
    // Keys of minutes past every window are not counted in again: forget them.
    for (const [k, t] of expirySent) if (now - t > COUNTS_KEEP_MS) expirySent.delete(k);
  }
  expirySent.set(key, now);
  return { key, expireAt: minute + COUNTS_KEEP_MS };
}

/** The write that carried `key`'s expiry (countTarget) failed: the next count sends it again. */
export function expiryNotSent(key: string): void {
  expirySent.delete(key);
}

/**
 * Adds one `outcome` at `at` (ms) to `m` (a MULTI or pipeline the caller sends with commands of
 * its own), so that the count costs no round trip of its own; with the hash's expiry when this
 * process has not sent it in the last COUNTS_EXPIRY_EVERY_MS.
 */
export function countIn(
  m: ChainableCommander,
  prefix: string,
  outcome: CountedOutcome,
  at: number,
  now: number = Date.now(),
): ChainableCommander {
  const { key, expireAt } = countTarget(prefix, at, now);
  m.hincrby(key, outcome, 1);
  return expireAt === null ? m : m.pexpireat(key, expireAt);
}

/** Counts one `outcome` at `at` on its own (where nothing else is sent to Redis then). */
export async function countOutcome(
  redis: Redis,
  prefix: string,
  outcome: CountedOutcome,
  at: number,
): Promise<void> {
  try {
    const replies = await countIn(redis.multi(), prefix, outcome, at).exec();
    const failed = replies?.find(([err]) => err !== null)?.[0];
    if (failed) throw failed;
  } catch (err) {
    expiryNotSent(deliveryCountsKey(prefix, minuteOf(at)));
    throw asRedisDependencyError(err);
  }
}

export interface MinuteCounts {
  /** The minute's start, in ms. */
  readonly at: number;
  readonly sent: number;
  readonly failed: number;
  readonly retried: number;
}

export interface RecentCounts {
  /** The window, in seconds: RECENT_MINUTES whole minutes, the current (partial) one last. */
  readonly window_s: number;
  readonly sent: number;
  readonly failed: number;
  readonly retried: number;
  /** Oldest first, one per minute of the window, zeros included. */
  readonly per_minute: MinuteCounts[];
}

/** The minute starts of the window that ends with the minute of `now`, oldest first. */
export const windowMinutes = (now: number): number[] => {
  const last = minuteOf(now);
  return Array.from({ length: RECENT_MINUTES }, (_, i) => last - (RECENT_MINUTES - 1 - i) * MINUTE_MS);
};

const count = (v: string | null | undefined): number => {
  const n = Number(v ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
};

/**
 * The window's counts from each minute's [sent, failed, retried] as HMGET answers them (null
 * where the minute's hash is missing or unreadable).
 */
export function summarize(
  minutes: readonly number[],
  rows: ReadonlyArray<ReadonlyArray<string | null> | null>,
): RecentCounts {
  const per_minute = minutes.map((at, i) => {
    const row = rows[i] ?? [];
    return { at, sent: count(row[0]), failed: count(row[1]), retried: count(row[2]) };
  });
  const total = (k: CountedOutcome) => per_minute.reduce((s, m) => s + m[k], 0);
  return {
    window_s: (RECENT_MINUTES * MINUTE_MS) / 1000,
    sent: total('sent'),
    failed: total('failed'),
    retried: total('retried'),
    per_minute,
  };
}

/** The counts of the last RECENT_MINUTES minutes up to `now` (ms), in one round trip. */
export async function recentCounts(redis: Redis, prefix: string, now: number): Promise<RecentCounts> {
  const minutes = windowMinutes(now);
  let replies: Array<[Error | null, unknown]> | null;
  try {
    if (isCluster(redis)) {
      // The minutes' keys lie in many slots: a cluster pipeline holds one; read each on its own.
      replies = await Promise.all(
        minutes.map((minute) =>
          redis.hmget(deliveryCountsKey(prefix, minute), ...OUTCOMES).then(
            (v): [Error | null, unknown] => [null, v],
            (err: Error): [Error | null, unknown] => [err, null],
          ),
        ),
      );
    } else {
      const p = redis.pipeline();
      for (const minute of minutes) p.hmget(deliveryCountsKey(prefix, minute), ...OUTCOMES);
      replies = await p.exec();
    }
  } catch (err) {
    throw asRedisDependencyError(err);
  }
  const failed = replies?.find(([err]) => err !== null)?.[0];
  if (failed) throw asRedisDependencyError(failed);
  return summarize(
    minutes,
    (replies ?? []).map(([, v]) => (Array.isArray(v) ? (v as Array<string | null>) : null)),
  );
}
