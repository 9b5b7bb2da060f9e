import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { batchWritesPerTurn, holdWritesThisTurn } from '../../src/redis/turn-batching.js';
import { TEST_REDIS_URL, useFileRedis } from '../helpers/redis.js';

/*
 * On the real Redis. Writes are counted where the socket hands them to the operating system
 * (its _write and _writev: one call, one write request). Counting what a server reads would not
 * do: writes made in one turn reach a peer that reads later as one chunk, batched or not.
 */
const file = useFileRedis('turn');
const prefix = file.prefix;
let redis: Redis;
beforeAll(() => {
  [redis] = file.clients as [Redis];
});

/** Counts the socket's writes from now on. */
function countWrites(client: Redis): { readonly count: number } {
  const socket = client.stream as Socket & {
    _write: (...a: unknown[]) => void;
    _writev: (...a: unknown[]) => void;
  };
  const counter = { count: 0 };
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method];
    socket[method] = function (this: unknown, ...args: unknown[]) {
      counter.count++;
      return original.apply(this, args);
    };
  }
  return counter;
}

const newClient = async (): Promise<Redis> => {
  const client = new Redis(TEST_REDIS_URL);
  onTestFinished(() => client.disconnect());
  await client.ping();
  return client;
};

describe('holdWritesThisTurn', () => {
  it("sends the commands of one turn in one write, with every command's own answer", async () => {
    const client = await newClient();
    const writes = countWrites(client);
    holdWritesThisTurn(client);
    const sets = Array.from({ length: 20 }, (_, i) => client.set(`${prefix}:k${i}`, `v${i}`));
    expect(client.stream.writableCorked).toBe(1);
    expect(await Promise.all(sets)).toEqual(Array(20).fill('OK'));
    expect(writes.count).toBe(1);
    expect(client.stream.writableCorked).toBe(0);
    expect(await redis.mget(...Array.from({ length: 20 }, (_, i) => `${prefix}:k${i}`))).toEqual(
      Array.from({ length: 20 }, (_, i) => `v${i}`),
    );
  });

  it('without a hold, the same commands take a write each (what the hold saves)', async () => {
    const client = await newClient();
    const writes = countWrites(client);
    await Promise.all(Array.from({ length: 20 }, (_, i) => client.set(`${prefix}:u${i}`, 'x')));
    expect(writes.count).toBeGreaterThanOrEqual(10);
  });

  it('releases the hold at the end of the turn: a lone command is not kept waiting', async () => {
    holdWritesThisTurn(redis);
    holdWritesThisTurn(redis); // a second hold in the same turn changes nothing
    expect(redis.stream.writableCorked).toBe(1);
    const started = performance.now();
    expect(await redis.ping()).toBe('PONG');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(redis.stream.writableCorked).toBe(0);
  });

  it('does nothing for a client that is not connected', () => {
    const idle = new Redis({ lazyConnect: true });
    expect(() => holdWritesThisTurn(idle)).not.toThrow();
    idle.disconnect();
  });
});

describe('batchWritesPerTurn (Nagle: hold only while replies are pending)', () => {
  it('a command to an idle connection leaves at once', async () => {
    const batched = batchWritesPerTurn(await newClient());
    expect(batchWritesPerTurn(batched)).toBe(batched); // idempotent
    const writes = countWrites(batched);
    const answer = batched.get(`${prefix}:missing`);
    expect(batched.stream.writableCorked).toBe(0);
    expect(writes.count).toBe(1);
    expect(await answer).toBeNull();
  });

  it('commands sent while a reply is pending share one write: commands, pipelines and scripts', async () => {
    const batched = batchWritesPerTurn(await newClient());
    batched.defineCommand('heraldTestEcho', { numberOfKeys: 0, lua: 'return ARGV[1]' });
    const echo = (batched as unknown as { heraldTestEcho: (v: string) => Promise<string> }).heraldTestEcho;
    await echo.call(batched, 'loaded'); // the script is known to Redis from here on (EVALSHA)
    const writes = countWrites(batched);
    for (let round = 0; round < 3; round++) {
      const before = writes.count;
      const answers = await Promise.all([
        batched.set(`${prefix}:b${round}`, 'x'), // the connection is idle: leaves at once
        echo.call(batched, `e${round}`), // the rest wait for the end of the turn
        batched.pipeline().incr(`${prefix}:n`).get(`${prefix}:b${round}`).exec(),
        batched.get(`${prefix}:missing`),
      ]);
      expect(writes.count - before).toBe(2);
      expect(answers[0]).toBe('OK');
      expect(answers[1]).toBe(`e${round}`);
      expect(answers[2]?.[1]).toEqual([null, 'x']);
      expect(answers[3]).toBeNull();
    }
  });
});
