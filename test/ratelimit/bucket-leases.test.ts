import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { DependencyError } from '../../src/errors/index.js';
import { BucketLeases, LEASE_TTL_MS, MAX_LEASE_TOKENS } from '../../src/ratelimit/bucket-leases.js';
import type { BucketResult } from '../../src/ratelimit/token-bucket.js';
import { useFileRedis } from '../helpers/redis.js';

/*
 * Leases over the real Redis script. The clock that measures demand and lease age is a number
 * the test moves; Redis keeps its own time. Whether a take was served from the lease is what
 * take() answers: a result (no Redis call) or a promise (a call).
 */
const file = useFileRedis('leases', 2);
const prefix = file.prefix;
let a: Redis;
let b: Redis;
beforeAll(() => {
  [a, b] = file.clients as [Redis, Redis];
});

function clock() {
  const c = { t: 1_000, now: () => c.t };
  return c;
}

/** Tokens the bucket holds in Redis (the key is "<tokens> <µs>"). */
async function redisTokens(key: string): Promise<number> {
  const raw = await a.get(key);
  return raw === null ? Number.NaN : Math.floor(Number(raw.split(' ')[0]));
}

describe('BucketLeases', () => {
  it('asks Redis first for a request that may hold a reservation, so that it is not charged twice', async () => {
    const key = `${prefix}:reserved`;
    const limit = { capacity: 1000, perSecond: 0.001 };
    const c = clock();
    const leases = new BucketLeases(a, c.now);
    // Busy enough to lease: later takes are served from the lease.
    for (let i = 0; i < 40; i++) await leases.take(key, limit);
    expect(leases.take(key, limit)).not.toBeInstanceOf(Promise);
    const paid = `${prefix}:reserved:paid`;
    await a.set(paid, '1', 'PX', 60_000);
    const before = await redisTokens(key);
    const back = leases.take(key, limit, 1, { key: paid, mayHold: true });
    expect(back).toBeInstanceOf(Promise);
    expect((await back).allowed).toBe(true);
    expect(await a.exists(paid)).toBe(0);
    // Nothing charged for it in Redis: the lease's unspent tokens may only have come back.
    expect(await redisTokens(key)).toBeGreaterThanOrEqual(before);
  });

  it('does not lease for requests that come one at a time', async () => {
    const key = `${prefix}:lone`;
    const limit = { capacity: 100, perSecond: 0.001 };
    const c = clock();
    const leases = new BucketLeases(a, c.now);
    for (let i = 0; i < 3; i++) {
      const taken = leases.take(key, limit);
      expect(taken).toBeInstanceOf(Promise);
      expect((await taken).remaining).toBe(99 - i);
      // Exact accounting in Redis: nothing held by this process.
      expect(await redisTokens(key)).toBe(99 - i);
      c.t += 3 * LEASE_TTL_MS;
    }
  });

  it('serves a busy bucket mostly from its lease, with exact remaining counts', async () => {
    const key = `${prefix}:busy`;
    const limit = { capacity: 100_000, perSecond: 0.001 };
    const leases = new BucketLeases(a, clock().now);
    const remaining: number[] = [];
    let calls = 0;
    for (let i = 0; i < 2000; i++) {
      const taken = leases.take(key, limit);
      if (taken instanceof Promise) calls++;
      const r = await taken;
      expect(r.allowed).toBe(true);
      remaining.push(r.remaining);
    }
    expect(remaining).toEqual(Array.from({ length: 2000 }, (_, i) => 99_999 - i));
    // Leases grow with demand up to MAX_LEASE_TOKENS and are fetched ahead while half is left.
    expect(calls).toBeLessThan(2000 / 20);
    // Redis holds what was not spent or leased; the lease is at most one grant plus one ahead.
    const inRedis = await redisTokens(key);
    expect(inRedis).toBeLessThanOrEqual(100_000 - 2000);
    expect(inRedis).toBeGreaterThanOrEqual(100_000 - 2000 - 2 * MAX_LEASE_TOKENS);
  });

  it('never lets two processes together spend more than the bucket; held tokens come back', async () => {
    const key = `${prefix}:shared`;
    const limit = { capacity: 400, perSecond: 0.001 };
    const c1 = clock();
    const c2 = clock();
    const one = new BucketLeases(a, c1.now);
    const two = new BucketLeases(b, c2.now);
    const taken: Array<BucketResult | Promise<BucketResult>> = [];
    // Far more than the bucket holds, from both processes, while leases come and go.
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 60; i++) taken.push(one.take(key, limit), two.take(key, limit));
      await new Promise((r) => setImmediate(r));
    }
    const burst = (await Promise.all(taken)).filter((r) => r.allowed).length;
    expect(burst).toBeLessThanOrEqual(400);
    // A lease that arrived after the last request is held until it expires; the next call of
    // its process gives it back, so in the end exactly the bucket was spent.
    let after = 0;
    for (let i = 0; i < 40; i++) {
      c1.t += 3 * LEASE_TTL_MS;
      c2.t += 3 * LEASE_TTL_MS;
      if ((await one.take(key, limit)).allowed) after++;
      if ((await two.take(key, limit)).allowed) after++;
    }
    expect(burst + after).toBe(400);
    expect(after).toBeLessThanOrEqual(2 * (400 / 16));
    expect(await redisTokens(key)).toBe(0);
  });

  it('gives leased tokens that expired unspent back with its next call', async () => {
    const key = `${prefix}:expiry`;
    const limit = { capacity: 10_000, perSecond: 0.001 };
    const c = clock();
    const leases = new BucketLeases(a, c.now);
    for (let i = 0; i < 100; i++) await leases.take(key, limit);
    expect(await redisTokens(key)).toBeLessThan(10_000 - 100);
    // The lease has expired; the next take is a call, and the rest of the lease goes back.
    c.t += 10 * LEASE_TTL_MS;
    const next = leases.take(key, limit);
    expect(next).toBeInstanceOf(Promise);
    expect((await next).remaining).toBe(10_000 - 101);
    expect(await redisTokens(key)).toBe(10_000 - 101);
  });

  it('does not lease from a small bucket (at most 1/16 of what is left), so its limit is exact', async () => {
    const key = `${prefix}:small`;
    const limit = { capacity: 10, perSecond: 0.001 };
    const leases = new BucketLeases(a, clock().now);
    const results: BucketResult[] = [];
    for (let i = 0; i < 11; i++) {
      const taken = leases.take(key, limit);
      expect(taken).toBeInstanceOf(Promise);
      results.push(await taken);
    }
    expect(results.map((r) => r.allowed)).toEqual([...Array(10).fill(true), false]);
    expect(results.map((r) => r.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
  });

  it('starts again under a changed limit and gives the old lease back', async () => {
    const key = `${prefix}:changed`;
    const leases = new BucketLeases(a, clock().now);
    for (let i = 0; i < 100; i++) await leases.take(key, { capacity: 10_000, perSecond: 0.001 });
    const changed = leases.take(key, { capacity: 10_000, perSecond: 0.002 });
    expect(changed).toBeInstanceOf(Promise);
    // A new lease knows no demand yet, so this call leases nothing: Redis holds all that is left.
    expect((await changed).remaining).toBe(10_000 - 101);
    expect(await redisTokens(key)).toBe(10_000 - 101);
  });

  it('raises DependencyError when it needs Redis and Redis is unreachable', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const leases = new BucketLeases(dead, clock().now);
    await expect(leases.take(`${prefix}:dead`, { capacity: 100, perSecond: 1 })).rejects.toBeInstanceOf(
      DependencyError,
    );
    dead.disconnect();
  });
});
