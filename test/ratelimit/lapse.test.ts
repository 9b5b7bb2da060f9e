import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { takeTokens } from '../../src/ratelimit/token-bucket.js';
import { useFileRedis } from '../helpers/redis.js';

const file = useFileRedis('lapse', 1);
let a: Redis;
beforeAll(() => {
  [a] = file.clients as [Redis];
});

describe('lapsed reservations', () => {
  // Found in review: with every claim late, each lapse charged again and re-reserved at the back,
  // so the bucket never got out of debt (1 of 3 sent in 4 s).
  it('a backlog whose claims all come 150 ms after their turn still drains: a message lapses once at most', async () => {
    const key = `${file.prefix}:rl:msg:bot`;
    const limit = { capacity: 1, perSecond: 10 };
    const sent: number[] = [];
    const started = Date.now();
    await Promise.all(
      [0, 1, 2].map(async (i) => {
        while (Date.now() - started < 4_000) {
          const r = await takeTokens(a, key, limit, 1, undefined, `${file.prefix}:rl:paid:${i}`);
          if (r.allowed) return void sent.push(Date.now() - started);
          // A loaded worker: back 150 ms after its turn (time passes deliberately).
          await sleep(r.retryAfterMs + 150);
        }
      }),
    );
    // 3 messages at 10/s need about 0.3 s, twice that with every turn paid twice; they have 4 s.
    expect(sent.length).toBe(3);
  }, 10_000);
});
