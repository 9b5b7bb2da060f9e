import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { asRedisDependencyError } from './redis-errors.js';

const LUA = readFileSync(new URL('./token-bucket.lua', import.meta.url), 'utf8');
const COMMAND = 'heraldTokenBucket';

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
  readonly limit: number;
}

type BucketCommand = (key: string, capacity: number, perSecond: number, cost: number) => Promise<number[]>;

/**
 * Takes `cost` tokens from the bucket at `key` (one Lua call, atomic, Redis server time).
 * An unreachable Redis raises DependencyError so callers answer 503 rather than let traffic
 * through unmetered.
 */
export async function takeTokens(
  redis: Redis,
  key: string,
  limit: BucketLimit,
  cost = 1,
): Promise<BucketResult> {
  const client = redis as Redis & Record<string, BucketCommand | undefined>;
  if (!client[COMMAND]) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: LUA });
  let reply: number[];
  try {
    reply = await (client[COMMAND] as BucketCommand)(key, limit.capacity, limit.perSecond, cost);
  } catch (err) {
    throw asRedisDependencyError(err);
  }
  const [allowed = 0, remaining = 0, retryAfterMs = 0, resetMs = 0] = reply;
  return { allowed: allowed === 1, remaining, retryAfterMs, resetMs, limit: limit.capacity };
}
