import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupBaseKey, groupDecisionKey } from '../../../src/redis/keys.js';
import { uniqueName } from '../../helpers/test-app.js';

/**
 * The grouping scripts on the real Redis (workers/delivery/group-fold.lua and group-take.lua),
 * with small limits: what the worker's grouping step relies on when workers die and run again.
 */
const FOLD = readFileSync(new URL('../../../src/workers/delivery/group-fold.lua', import.meta.url), 'utf8');
const TAKE = readFileSync(new URL('../../../src/workers/delivery/group-take.lua', import.meta.url), 'utf8');
const prefix = `herald-test-${uniqueName('group_fold')}`;
let redis: Redis;

type Fold = (base: string, decision: string, ...args: Array<string | number>) => Promise<string>;
type Take = (base: string, window: string, ttl: number) => Promise<Array<string | null>>;
let fold: Fold;
let take: Take;

interface Opts {
  mode?: 'digest' | 'throttle';
  limit?: number;
  maxItems?: number;
  maxBytes?: number;
  windowMs?: number;
}

const foldOne = (group: string, msgId: string, at: number, o: Opts = {}) =>
  fold(
    groupBaseKey(prefix, group),
    groupDecisionKey(prefix, msgId),
    msgId,
    at,
    JSON.stringify({ input: `body of ${msgId}`, input_encoding: null }),
    o.windowMs ?? 60_000,
    o.mode ?? 'digest',
    o.limit ?? 0,
    o.maxItems ?? 500,
    60_000,
    60_000,
    o.maxBytes ?? 1_000_000,
  );

const parse = (d: string) => {
  const [kind, n, at, held] = d.split('|');
  return { kind, window: Number(n), at: Number(at), held: Number(held) };
};

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  redis.defineCommand('testGroupFold', { numberOfKeys: 2, lua: FOLD });
  redis.defineCommand('testGroupTake', { numberOfKeys: 1, lua: TAKE });
  const client = redis as unknown as { testGroupFold: Fold; testGroupTake: Take };
  fold = client.testGroupFold.bind(redis);
  take = client.testGroupTake.bind(redis);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('group fold and take', () => {
  it('folds once per message (a re-run reads its decision), in acceptance order; take closes the window', async () => {
    const first = parse(await foldOne('g1', 'b', 20));
    expect(first).toMatchObject({ kind: 'f', window: 1 });
    expect(parse(await foldOne('g1', 'a', 10))).toEqual(first);
    // The same message again (its worker died after the fold): the same answer, not a second item.
    expect(parse(await foldOne('g1', 'b', 20))).toEqual(first);
    expect(await take(groupBaseKey(prefix, 'g1'), '1', 60_000)).toEqual([
      JSON.stringify({ input: 'body of a', input_encoding: null }),
      JSON.stringify({ input: 'body of b', input_encoding: null }),
    ]);
    // Taken again (a re-run of the digest): the same items, kept until it is sent.
    expect(await take(groupBaseKey(prefix, 'g1'), '1', 60_000)).toHaveLength(2);
    // The window is closed: the next message opens window 2.
    expect(parse(await foldOne('g1', 'c', 30))).toMatchObject({ kind: 'f', window: 2 });
    // A message folded before the take is still in window 1, whatever came after.
    expect(parse(await foldOne('g1', 'a', 10))).toMatchObject({ window: 1 });
  });

  it('closes a full window (items or bytes) for the next one', async () => {
    const windows = [];
    for (const id of ['m1', 'm2', 'm3', 'm4', 'm5'])
      windows.push(parse(await foldOne('g2', id, 1, { maxItems: 2 })).window);
    expect(windows).toEqual([1, 1, 2, 2, 3]);
    const bytes = [];
    for (const id of ['n1', 'n2', 'n3'])
      bytes.push(parse(await foldOne('g3', id, 1, { maxBytes: 10 })).window);
    expect(bytes).toEqual([1, 2, 3]);
  });

  it('throttle: passes `limit` per window, folds the rest; the next window tells how many were held back', async () => {
    const o = { mode: 'throttle' as const, limit: 2, windowMs: 300 };
    const kinds = [];
    for (const id of ['t1', 't2', 't3', 't4']) kinds.push(parse(await foldOne('g4', id, 1, o)));
    expect(kinds.map((k) => k.kind)).toEqual(['p', 'p', 'f', 'f']);
    // Past the window's end on Redis's clock (the one the script reads), a new window; it says
    // 2 were held back.
    const end = (kinds[0]?.at ?? 0) + o.windowMs;
    const redisNow = async () => {
      const [s, us] = await redis.time();
      return Number(s) * 1000 + Math.floor(Number(us) / 1000);
    };
    await expect.poll(redisNow, { timeout: 5_000, interval: 20 }).toBeGreaterThanOrEqual(end);
    expect(parse(await foldOne('g4', 't5', 2, o))).toMatchObject({ kind: 'p', window: 2, held: 2 });
    // A passed message's re-run passes again and is not counted twice.
    expect(parse(await foldOne('g4', 't5', 2, o))).toMatchObject({ kind: 'p', window: 2 });
    expect(parse(await foldOne('g4', 't6', 2, o))).toMatchObject({ kind: 'p', window: 2 });
    expect(parse(await foldOne('g4', 't7', 2, o))).toMatchObject({ kind: 'f', window: 2 });
  });
});
