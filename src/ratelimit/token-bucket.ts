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

/** Tokens a process leases for its next requests, and gives back (ratelimit/bucket-leases.ts). */
export interface LeaseRequest {
  /** Tokens wanted beyond this request's cost. */
  readonly want: number;
  /** Leased tokens not spent, put back before this request is charged. */
  readonly refund: number;
  /** The lease is at most 1/shareDivisor of what the bucket holds after this request. */
  readonly shareDivisor: number;
}

type BucketCommand = (
  key: string,
  capacity: number,
  perSecond: number,
  cost: number,
  ...lease: number[]
) => Promise<number[]>;

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
  lease?: LeaseRequest,
): Promise<BucketResult & { readonly leased: number }> {
  const client = redis as Redis & Record<string, BucketCommand | undefined>;
  if (!client[COMMAND]) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: LUA });
  let reply: number[];
  try {
    const args = lease ? [lease.want, lease.refund, lease.shareDivisor] : [];
    reply = await (client[COMMAND] as BucketCommand)(key, limit.capacity, limit.perSecond, cost, ...args);
  } catch (err) {
    throw asRedisDependencyError(err);
  }
  const [allowed = 0, remaining = 0, retryAfterMs = 0, resetMs = 0, leased = 0] = reply;
  return { allowed: allowed === 1, remaining, retryAfterMs, resetMs, limit: limit.capacity, leased };
}
