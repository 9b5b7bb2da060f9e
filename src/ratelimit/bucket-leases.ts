import type { Redis } from 'ioredis';
import { type BucketLimit, type BucketResult, takeTokens } from './token-bucket.js';

/*
 * Leased tokens: a process that sees many requests on one bucket takes a few tokens more than a
 * request needs and spends them on its next requests without a Redis call. The budget stays in
 * Redis and shared: leased tokens have left the bucket, so all processes together never accept
 * more than capacity + rate x t. What a lease costs is fairness at the edges: tokens one process
 * holds are not there for another until it spends or gives them back. So a lease is
 * - only taken on demand: at most the tokens this process spent on the bucket in the last window,
 *   so a lone request or a slow sender never leases (exact Redis accounting as before);
 * - small against the bucket: at most 1/LEASE_SHARE_DIVISOR of what is left after the request
 *   (a 60-token pipe bucket leases at most 3, one of 16 or fewer none);
 * - short: unspent tokens are handed back with the next call after LEASE_TTL_MS.
 */

/** How long leased tokens may be spent, in ms; also the window that measures demand. */
export const LEASE_TTL_MS = 100;
/** Most tokens one process leases in one call. */
export const MAX_LEASE_TOKENS = 256;
/** A lease is at most 1/this of the tokens the bucket holds after the request. */
export const LEASE_SHARE_DIVISOR = 16;
/** How long a bucket's last answer tells whether a look ahead is worth it, in ms (looksShort). */
export const LOOK_AHEAD_MS = 1_000;
/** Most buckets a process keeps lease state for; the oldest is dropped (its tokens are lost). */
export const MAX_LEASED_BUCKETS = 10_000;

/**
 * A request that waits in line when refused (token-bucket.lua, KEYS[2]): `key` names it, and
 * `mayHold` says it may have reserved before (it was put off once), so Redis is asked first.
 */
export interface Reservation {
  readonly key: string;
  readonly mayHold: boolean;
}

interface Lease {
  readonly capacity: number;
  readonly perSecond: number;
  /** Leased tokens not spent yet. */
  tokens: number;
  /** Leased tokens that expired unspent, handed back with the next call. */
  refund: number;
  /** The last lease's size: a new one is fetched ahead when half of it is spent. */
  granted: number;
  /** performance.now() after which `tokens` may no longer be spent. */
  expiresAt: number;
  /** Tokens left in Redis at the last answer (for X-Rate-Limit-Remaining). */
  redisRemaining: number;
  /** When that answer came (this.now()). */
  answeredAt: number;
  /** Demand: tokens asked for in the current window and in the one before. */
  windowStart: number;
  spent: number;
  spentBefore: number;
  /** The call in flight that asks for a lease, if any: requests that find no tokens wait for it. */
  leasing: Promise<unknown> | null;
}

/**
 * Token buckets in Redis, with per-process leases for busy buckets. One per process and use
 * (the web's pipe budgets, a worker's bot budgets): leases are only shared within one.
 */
export class BucketLeases {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Takes `cost` tokens from the bucket at `key`: from this process's lease when it holds
   * enough (no promise then), else from Redis. Raises DependencyError when Redis is needed and
   * unreachable.
   */
  take(
    key: string,
    limit: BucketLimit,
    cost = 1,
    reservation?: Reservation,
  ): BucketResult | Promise<BucketResult> {
    const lease = this.leaseFor(key, limit);
    if (reservation?.mayHold) {
      // Its payment, if it made one, is in Redis: a lease would charge it twice.
      return this.call(key, lease, limit, cost, reservation.key);
    }
    const now = this.now();
    if (now - lease.windowStart >= LEASE_TTL_MS) {
      lease.spentBefore = now - lease.windowStart < 2 * LEASE_TTL_MS ? lease.spent : 0;
      lease.spent = 0;
      lease.windowStart = now;
    }
    lease.spent += cost;
    return this.spend(key, lease, limit, cost, false, reservation?.key);
  }

  /**
   * Whether this process's last answer on the bucket at `key`, within LOOK_AHEAD_MS, left less
   * than `cost`: a request is then likely refused, and worth a look ahead (peek) before work
   * that would be wasted on it. Costs nothing: no Redis call.
   */
  looksShort(key: string, limit: BucketLimit, cost: number): boolean {
    const lease = this.leases.get(key);
    if (!lease || lease.capacity !== limit.capacity || lease.perSecond !== limit.perSecond) return false;
    return this.now() - lease.answeredAt < LOOK_AHEAD_MS && lease.redisRemaining + lease.tokens < cost;
  }

  /**
   * A look ahead (token-bucket.lua, ARGV[8]): answers whether `cost` tokens are there, taking
   * none; refused, the request reserves its turn under `reservation`. Always a Redis call.
   */
  async peek(key: string, limit: BucketLimit, cost: number, reservation: string): Promise<BucketResult> {
    const lease = this.leaseFor(key, limit);
    const r = await takeTokens(this.redis, key, limit, cost, undefined, reservation, true);
    lease.redisRemaining = r.remaining;
    lease.answeredAt = this.now();
    return r;
  }

  private spend(
    key: string,
    lease: Lease,
    limit: BucketLimit,
    cost: number,
    waited = false,
    reservation?: string,
  ): BucketResult | Promise<BucketResult> {
    const now = this.now();
    if (lease.tokens > 0 && now >= lease.expiresAt) {
      lease.refund += lease.tokens;
      lease.tokens = 0;
    }
    if (cost <= lease.tokens) {
      lease.tokens -= cost;
      if (lease.tokens * 2 < lease.granted && lease.leasing === null) {
        // Fetch the next lease while this one still serves (a failure only means no lease).
        this.call(key, lease, limit, 0).catch(() => {});
      }
      return this.localResult(lease);
    }
    if (!waited && lease.leasing !== null) {
      // A lease is on its way: wait for it once rather than make one more call. After that,
      // call: when the bucket ran low (no lease granted), refused requests are not serialised.
      const again = () => this.spend(key, lease, limit, cost, true, reservation);
      return lease.leasing.then(again, again);
    }
    return this.call(key, lease, limit, cost, reservation);
  }

  private async call(
    key: string,
    lease: Lease,
    limit: BucketLimit,
    cost: number,
    reservation?: string,
  ): Promise<BucketResult> {
    // A request the lease cannot serve gives back the few tokens left (they would only expire);
    // a lease fetched ahead (cost 0) keeps them.
    const refund = lease.refund + (cost > 0 ? lease.tokens : 0);
    lease.refund = 0;
    if (cost > 0) lease.tokens = 0;
    const demand = Math.max(lease.spent, lease.spentBefore);
    // One lease at a time per bucket; other calls only take their own cost.
    const want = lease.leasing === null && demand > cost ? Math.min(MAX_LEASE_TOKENS, demand) : 0;
    const pending = takeTokens(
      this.redis,
      key,
      limit,
      cost,
      { want, refund, shareDivisor: LEASE_SHARE_DIVISOR },
      reservation,
    );
    if (want > 0) lease.leasing = pending;
    try {
      const r = await pending;
      if (want > 0) {
        lease.tokens += r.leased;
        lease.granted = r.leased;
        lease.expiresAt = this.now() + LEASE_TTL_MS;
      }
      lease.redisRemaining = r.remaining;
      lease.answeredAt = this.now();
      return { ...r, remaining: r.remaining + lease.tokens };
    } finally {
      if (lease.leasing === pending) lease.leasing = null;
    }
  }

  private localResult(lease: Lease): BucketResult {
    const remaining = Math.min(lease.capacity, lease.redisRemaining + lease.tokens);
    return {
      allowed: true,
      remaining,
      retryAfterMs: 0,
      resetMs: Math.ceil(((lease.capacity - remaining) * 1000) / lease.perSecond),
      limit: lease.capacity,
    };
  }

  private leaseFor(key: string, limit: BucketLimit): Lease {
    const found = this.leases.get(key);
    if (found && found.capacity === limit.capacity && found.perSecond === limit.perSecond) return found;
    // A changed limit starts a new lease; the old one's tokens go back with its first call.
    if (!found && this.leases.size >= MAX_LEASED_BUCKETS) {
      const oldest = this.leases.keys().next().value;
      if (oldest !== undefined) this.leases.delete(oldest);
    }
    const lease: Lease = {
      capacity: limit.capacity,
      perSecond: limit.perSecond,
      tokens: 0,
      refund: found ? found.tokens + found.refund : 0,
      granted: 0,
      expiresAt: 0,
      redisRemaining: 0,
      answeredAt: Number.NEGATIVE_INFINITY,
      windowStart: this.now(),
      spent: 0,
      spentBefore: 0,
      leasing: null,
    };
    this.leases.set(key, lease);
    return lease;
  }
}
