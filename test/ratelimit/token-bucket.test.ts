import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DependencyError } from '../../src/errors/index.js';
import { type BucketResult, rememberPayment, takeTokens } from '../../src/ratelimit/token-bucket.js';
import { useFileRedis } from '../helpers/redis.js';

/** The Lua script runs on the real Redis: nothing here is stubbed. */
const file = useFileRedis('bucket', 2);
const prefix = file.prefix;
let a: Redis;
let b: Redis;
beforeAll(() => {
  [a, b] = file.clients as [Redis, Redis];
});

/** The tokens the bucket at `key` holds, as the script stored them (before refill). */
async function redisTokensOf(key: string): Promise<number> {
  return Number(((await a.get(key)) ?? '0 0').split(' ')[0]);
}

describe('takeTokens', () => {
  it('allows the burst, then refuses with the wait until a token is due', async () => {
    const key = `${prefix}:burst`;
    // 5 s a token: the refill while the four calls run (slower on a busy machine) stays small.
    const limit = { capacity: 3, perSecond: 0.2 };
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await takeTokens(a, key, limit));
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    const refused = results[3]!;
    expect(refused.retryAfterMs).toBeGreaterThan(4_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(5_000);
    expect(refused.resetMs).toBeGreaterThan(10_000);
    expect(refused.limit).toBe(3);
  });

  it('with a reservation key, a refused request reserves its turn and later passes without paying again', async () => {
    const key = `${prefix}:reserve`;
    // A token a second. Each wait is turned into the Redis time it ends at (the calls are made
    // at different times, slower on a busy machine), and turns are compared by those.
    const limit = { capacity: 2, perSecond: 1 };
    const paid = (n: number) => `${prefix}:reserve:paid:${n}`;
    /** Redis's clock now, in ms: read after a call, it bounds that call's time from above. */
    const redisNow = async () => {
      const [s, us] = await a.time();
      return Number(s) * 1000 + Number(us) / 1000;
    };
    const take = async (client: Redis, reservation?: string) => {
      const r = await takeTokens(client, key, limit, 1, undefined, reservation);
      // The script ran before this read: its wait ends no later than this.
      return { ...r, endsBy: (await redisNow()) + r.retryAfterMs };
    };
    expect((await take(a, paid(1))).allowed).toBe(true);
    expect((await take(a, paid(2))).allowed).toBe(true);
    // Refused requests wait in line: each one's turn is a token (1 s) after the one before it.
    const third = await take(a, paid(3));
    const fourth = await take(b, paid(4));
    expect([third.allowed, third.reserved, fourth.allowed, fourth.reserved]).toEqual([
      false,
      true,
      false,
      true,
    ]);
    expect(third.retryAfterMs).toBeGreaterThan(500);
    expect(third.retryAfterMs).toBeLessThanOrEqual(1_000);
    expect(fourth.endsBy).toBeGreaterThan(third.endsBy + 500);
    expect(fourth.remaining).toBe(0);
    expect(await a.pttl(paid(3))).toBeGreaterThan(third.retryAfterMs);
    // Without a key nothing is reserved: the wait is after both reservations, and stays so.
    const plain = await take(a);
    expect(plain.reserved).toBe(false);
    expect(plain.endsBy).toBeGreaterThan(fourth.endsBy + 500);
    expect((await take(a)).endsBy).toBeGreaterThan(fourth.endsBy + 500);
    // The third comes back (from its turn on): it has paid, passes, and its reservation is gone.
    await vi.waitFor(async () => expect((await take(a, paid(3))).allowed).toBe(true), {
      timeout: 5_000,
      interval: 20,
    });
    expect(await a.exists(paid(3))).toBe(0);
    // Once only: the same key again is a new request, refused after the fourth's turn.
    const again = await take(a, paid(3));
    expect([again.allowed, again.reserved]).toEqual([false, true]);
    expect(again.endsBy).toBeGreaterThan(fourth.endsBy + 500);
  });

  it('a reservation that comes back before its turn is told to wait the rest, and keeps its key', async () => {
    const key = `${prefix}:early`;
    // A token every 10 s: the turn is far off whatever the machine's speed.
    const limit = { capacity: 1, perSecond: 0.1 };
    const paid = `${prefix}:early:paid`;
    expect((await takeTokens(a, key, limit)).allowed).toBe(true);
    const refused = await takeTokens(a, key, limit, 1, undefined, paid);
    expect([refused.allowed, refused.reserved]).toEqual([false, true]);
    const before = await redisTokensOf(key);
    const early = await takeTokens(b, key, limit, 1, undefined, paid);
    expect([early.allowed, early.reserved]).toEqual([false, true]);
    // The rest of its wait, not a new one behind its own debt; nothing charged again.
    expect(early.retryAfterMs).toBeLessThanOrEqual(refused.retryAfterMs);
    expect(early.retryAfterMs).toBeGreaterThan(refused.retryAfterMs - 5_000);
    expect(await redisTokensOf(key)).toBeGreaterThanOrEqual(before);
    expect(await a.exists(paid)).toBe(1);
  });

  it('a reservation claimed long after its turn cannot send on top of the refill another request took', async () => {
    const key = `${prefix}:late`;
    const limit = { capacity: 1, perSecond: 2 };
    const paid = `${prefix}:late:paid`;
    expect((await takeTokens(a, key, limit)).allowed).toBe(true);
    const refused = await takeTokens(a, key, limit, 1, undefined, paid);
    expect([refused.allowed, refused.reserved]).toEqual([false, true]);
    // Time passes (deliberately): its turn, and the bucket full again.
    await sleep(refused.retryAfterMs + 1_000);
    // Meanwhile another request takes the refilled token.
    expect((await takeTokens(b, key, limit)).allowed).toBe(true);
    // Claimed now, the reservation would be a second send within moments on a bucket of 1: it
    // waits for the refill instead, and keeps its reservation (it has paid).
    const late = await takeTokens(a, key, limit, 1, undefined, paid);
    expect([late.allowed, late.reserved]).toEqual([false, true]);
    expect(late.retryAfterMs).toBeGreaterThan(0);
    expect(late.retryAfterMs).toBeLessThanOrEqual(500);
    expect(await a.exists(paid)).toBe(1);
    await sleep(late.retryAfterMs);
    expect((await takeTokens(a, key, limit, 1, undefined, paid)).allowed).toBe(true);
    expect(await a.exists(paid)).toBe(0);
  });

  it('a backlog whose turns all passed (a stall) leaves at capacity + rate x t, in line, and pays once', async () => {
    const key = `${prefix}:stall`;
    // 1 s a token: the refill while the claims below run stays well under one token.
    const limit = { capacity: 2, perSecond: 1 };
    const paid = (i: number) => `${prefix}:stall:paid:${i}`;
    for (let i = 0; i < 2; i++) expect((await takeTokens(a, key, limit)).allowed).toBe(true);
    const turns = [];
    for (let i = 0; i < 4; i++) turns.push(await takeTokens(a, key, limit, 1, undefined, paid(i)));
    expect(turns.every((r) => r.reserved)).toBe(true);
    // The stall: every turn passes (the last is 4 s away), and the bucket would be full again.
    await sleep((turns.at(-1) as { retryAfterMs: number }).retryAfterMs + 2_500);
    const claims = [];
    for (const i of [0, 1, 2, 3]) claims.push(await takeTokens(a, key, limit, 1, undefined, paid(i)));
    // Two (the burst) go now; the others take places in line, a token (1 s) apart.
    expect(claims.map((r) => r.allowed)).toEqual([true, true, false, false]);
    const [third, fourth] = claims.slice(2) as unknown as [BucketResult, BucketResult];
    expect([third.reserved, fourth.reserved]).toEqual([true, true]);
    expect(third.retryAfterMs).toBeGreaterThan(900);
    expect(third.retryAfterMs).toBeLessThanOrEqual(1_000);
    expect(fourth.retryAfterMs - third.retryAfterMs).toBeGreaterThan(900);
    // Paid once: each claim charged the count of sends once, the line's tokens not again (two
    // claims' debt, not six), and new requests queue behind it.
    expect(await redisTokensOf(key)).toBeGreaterThan(-2.5);
    expect(await redisTokensOf(key)).toBeLessThan(-1.5);
    const late = await takeTokens(a, key, limit);
    expect([late.allowed, late.retryAfterMs > fourth.retryAfterMs]).toEqual([false, true]);
    // Each passes at its turn, charged nothing more (the debt only shrinks as the bucket refills).
    const before = await redisTokensOf(key);
    await sleep(third.retryAfterMs + 20);
    expect((await takeTokens(a, key, limit, 1, undefined, paid(2))).allowed).toBe(true);
    await sleep(fourth.retryAfterMs - third.retryAfterMs);
    expect((await takeTokens(a, key, limit, 1, undefined, paid(3))).allowed).toBe(true);
    expect(await redisTokensOf(key)).toBeGreaterThanOrEqual(before);
  }, 15_000);

  it('a payment kept as long as the count of sends says (sendableFullMs) never sends on top of a full burst', async () => {
    const key = `${prefix}:kept`;
    const limit = { capacity: 5, perSecond: 10 };
    const paid = (i: number) => `${prefix}:kept:paid:${i}`;
    for (let i = 0; i < 5; i++) expect((await takeTokens(a, key, limit)).allowed).toBe(true);
    const turns = [];
    for (let i = 0; i < 10; i++) turns.push(await takeTokens(a, key, limit, 1, undefined, paid(i)));
    await sleep((turns[0] as BucketResult).retryAfterMs + 20);
    // The first claims at its turn, then is put off before its send: its payment is kept as the
    // worker keeps it (process-message.ts, paymentOf: less the cost's own refill).
    const first = await takeTokens(a, key, limit, 1, undefined, paid(0));
    expect(first.allowed).toBe(true);
    await rememberPayment(a, paid(0), (first.sendableFullMs ?? first.resetMs) - 100);
    // Long enough for the count of sends to fill (the line's tokens are still in debt), then
    // every message comes back at once: at most the burst goes.
    await sleep(1_000);
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => takeTokens(a, key, limit, 1, undefined, paid(i))),
    );
    expect(claims.filter((r) => r.allowed).length).toBeLessThanOrEqual(limit.capacity);
  });

  it('a look ahead (peek) takes nothing when the tokens are there, and reserves when they are not', async () => {
    const key = `${prefix}:peek`;
    const limit = { capacity: 1, perSecond: 0.1 };
    const paid = (n: number) => `${prefix}:peek:paid:${n}`;
    const ahead = await takeTokens(a, key, limit, 1, undefined, paid(1), true);
    expect([ahead.allowed, ahead.reserved]).toEqual([true, false]);
    expect(await a.exists(paid(1))).toBe(0);
    // Still there for the real take.
    expect((await takeTokens(a, key, limit)).allowed).toBe(true);
    const short = await takeTokens(a, key, limit, 1, undefined, paid(2), true);
    expect([short.allowed, short.reserved]).toEqual([false, true]);
    expect(await a.exists(paid(2))).toBe(1);
  });

  it('refills from Redis time', async () => {
    const key = `${prefix}:refill`;
    const limit = { capacity: 1, perSecond: 20 };
    expect((await takeTokens(a, key, limit)).allowed).toBe(true);
    expect((await takeTokens(a, key, limit)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 80));
    expect((await takeTokens(a, key, limit)).allowed).toBe(true);
  });

  it("counts time by Redis's clock, not the caller's: a caller an hour ahead gets no refill", async () => {
    const key = `${prefix}:clock`;
    const limit = { capacity: 1, perSecond: 0.01 };
    expect((await takeTokens(a, key, limit)).allowed).toBe(true);
    const realNow = Date.now;
    const hourAhead = realNow() + 3_600_000;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => hourAhead);
    try {
      expect((await takeTokens(a, key, limit)).allowed).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it('shares one budget between clients (processes) and never overspends under concurrency', async () => {
    const key = `${prefix}:shared`;
    const limit = { capacity: 10, perSecond: 0.001 };
    const all = await Promise.all(
      Array.from({ length: 30 }, (_, i) => takeTokens(i % 2 ? a : b, key, limit)),
    );
    expect(all.filter((r) => r.allowed)).toHaveLength(10);
  });

  it('charges the cost and clamps a cost above capacity to the capacity', async () => {
    const key = `${prefix}:cost`;
    const limit = { capacity: 5, perSecond: 1 };
    expect((await takeTokens(a, key, limit, 4)).remaining).toBe(1);
    expect((await takeTokens(a, key, limit, 2)).allowed).toBe(false);
    const big = await takeTokens(a, `${prefix}:big`, limit, 50);
    expect(big).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('grants a lease only to an allowed request, at most 1/shareDivisor of what is left', async () => {
    const key = `${prefix}:lease`;
    const limit = { capacity: 100, perSecond: 0.001 };
    // 99 left after the request: at most floor(99 / 16) = 6 of the 50 wanted.
    const first = await takeTokens(a, key, limit, 1, { want: 50, refund: 0, shareDivisor: 16 });
    expect(first).toMatchObject({ allowed: true, leased: 6, remaining: 93 });
    // Less wanted than the share allows: exactly what is wanted.
    const second = await takeTokens(a, key, limit, 1, { want: 2, refund: 0, shareDivisor: 16 });
    expect(second).toMatchObject({ allowed: true, leased: 2, remaining: 90 });
    // A refused request gets nothing.
    const refused = await takeTokens(a, key, limit, 100, { want: 50, refund: 0, shareDivisor: 16 });
    expect(refused).toMatchObject({ allowed: false, leased: 0, remaining: 90 });
    // Without lease arguments nothing is leased.
    expect(await takeTokens(a, key, limit)).toMatchObject({ allowed: true, leased: 0, remaining: 89 });
  });

  it('puts a refund back before charging, never above capacity', async () => {
    const key = `${prefix}:refund`;
    const limit = { capacity: 10, perSecond: 0.001 };
    expect((await takeTokens(a, key, limit, 8)).remaining).toBe(2);
    const back = await takeTokens(a, key, limit, 1, { want: 0, refund: 5, shareDivisor: 16 });
    expect(back.remaining).toBe(6);
    const capped = await takeTokens(a, key, limit, 1, { want: 0, refund: 50, shareDivisor: 16 });
    expect(capped.remaining).toBe(9);
  });

  it('lets an idle bucket expire once it would be full again', async () => {
    const key = `${prefix}:expire`;
    await takeTokens(a, key, { capacity: 10, perSecond: 5 }, 5);
    // 5 tokens short at 5 per second: full after 1 s, kept 1 s more.
    const ttl = await a.pttl(key);
    expect(ttl).toBeGreaterThan(1500);
    expect(ttl).toBeLessThanOrEqual(2000);
  });

  it('replaces a key of another type (a bucket stored as a hash by an older version) with a full bucket', async () => {
    const key = `${prefix}:old-format`;
    await a.hset(key, 'tokens', '0.000000', 'ts', '1');
    const r = await takeTokens(a, key, { capacity: 4, perSecond: 1 });
    expect(r).toMatchObject({ allowed: true, remaining: 3 });
    expect(await a.type(key)).toBe('string');
  });

  it('raises DependencyError when Redis is unreachable', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    await expect(takeTokens(dead, `${prefix}:x`, { capacity: 1, perSecond: 1 })).rejects.toBeInstanceOf(
      DependencyError,
    );
    dead.disconnect();
  });
});
