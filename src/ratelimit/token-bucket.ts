import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { asRedisDependencyError } from './redis-errors.js';

const LUA = readFileSync(new URL('./token-bucket.lua', import.meta.url), 'utf8');
const COMMAND = 'heraldTokenBucket';
/** The same script with a reservation key (KEYS[2]). */
const RESERVING_COMMAND = 'heraldTokenBucketReserving';
/** How long a reservation is kept after the wait it was made for, in ms (1 h): a message that
 * comes back later than that (workers down meanwhile) is charged again, which only slows it. */
export const RESERVATION_KEEP_MS = 60 * 60 * 1000;

export interface BucketLimit {
  /** Burst size, in tokens. */
  readonly capacity: number;
  /** Refill rate, in tokens per second. */
  readonly perSecond: number;
}

export interface BucketResult {
  readonly allowed: boolean;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** When `allowed` is false: ms until this request's cost is available. */
  readonly retryAfterMs: number;
  /** ms until the bucket is full again. */
  readonly resetMs: number;
  /**
   * ms until the bucket's count of sends is full again (token-bucket.lua, "Two counts"): a
   * payment taken now is as good as one taken later only until then. Absent: `resetMs`.
   */
  readonly sendableFullMs?: number;
  readonly limit: number;
  /**
   * When `allowed` is false and a reservation key was given: the tokens were taken anyway (the
   * bucket is in debt), or were taken earlier and their turn has not come yet, and the key says
   * so; come back after `retryAfterMs` with the same key.
   */
  readonly reserved?: boolean;
}

/** Tokens a process leases for its next requests, and gives back (ratelimit/bucket-leases.ts). */
export interface LeaseRequest {
  /** Tokens wanted beyond this request's cost. */
  readonly want: number;
  /** Leased tokens not spent, put back before this request is charged. */
  readonly refund: number;
  /** The lease is at most 1/shareDivisor of what the bucket holds after this request. */
  readonly shareDivisor: number;
}

type BucketCommand = (...keysAndArgs: Array<string | number>) => Promise<number[]>;

/**
 * Takes `cost` tokens from the bucket at `key` (one Lua call, atomic, Redis server time).
 * With `reservation` (a key naming one message), a refused request reserves its tokens, and a
 * request whose reservation is there passes without paying again (token-bucket.lua, KEYS[2]).
 * `peek` (with `reservation`): an allowed request takes nothing, a refused one reserves.
 * An unreachable Redis raises DependencyError so callers answer 503 rather than let traffic
 * through unmetered.
 */
export async function takeTokens(
  redis: Redis,
  key: string,
  limit: BucketLimit,
  cost = 1,
  lease?: LeaseRequest,
  reservation?: string,
  peek = false,
): Promise<BucketResult & { readonly leased: number }> {
  const client = redis as Redis & Record<string, BucketCommand | undefined>;
  if (!client[COMMAND]) {
    redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: LUA });
    redis.defineCommand(RESERVING_COMMAND, { numberOfKeys: 2, lua: LUA });
  }
  let reply: number[];
  try {
    const args = [
      limit.capacity,
      limit.perSecond,
      cost,
      lease?.want ?? 0,
      lease?.refund ?? 0,
      lease?.shareDivisor ?? 1,
    ];
    reply = reservation
      ? await (client[RESERVING_COMMAND] as BucketCommand)(
          key,
          reservation,
          ...args,
          RESERVATION_KEEP_MS,
          peek ? 1 : 0,
        )
      : await (client[COMMAND] as BucketCommand)(key, ...args);
  } catch (err) {
    throw asRedisDependencyError(err);
  }
  const [
    allowed = 0,
    remaining = 0,
    retryAfterMs = 0,
    resetMs = 0,
    leased = 0,
    reserved = 0,
    sendableFullMs = 0,
  ] = reply;
  return {
    allowed: allowed === 1,
    // In debt (reservations), the bucket holds less than nothing; callers see none left.
    remaining: Math.max(0, remaining),
    retryAfterMs,
    resetMs,
    sendableFullMs,
    limit: limit.capacity,
    leased,
    reserved: reserved === 1,
  };
}

/**
 * Records that the request named by `reservation` has paid, for `keepMs`: its next takeTokens
 * with that key passes free at once (as after a reservation whose turn has come). For a message
 * that paid and was then put off before it reached its sink (an outage, or the shutdown deadline
 * while rendering), so that its next run is not charged again.
 */
export async function rememberPayment(redis: Redis, reservation: string, keepMs: number): Promise<void> {
  try {
    await redis.set(reservation, '0', 'PX', Math.max(1, Math.ceil(keepMs)));
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}
