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
    // Tries each message needed to be allowed: refused (a turn), lapsed (a new turn), allowed.
    const tries = await Promise.all(
      [0, 1, 2].map(async (i) => {
        for (let n = 1; n <= 10; n++) {
          const r = await takeTokens(a, key, limit, 1, undefined, `${file.prefix}:rl:paid:${i}`);
          if (r.allowed) return n;
          // A loaded worker: back 150 ms after its turn (time passes deliberately).
          await sleep(r.retryAfterMs + 150);
        }
        return Number.POSITIVE_INFINITY;
      }),
    );
    for (const n of tries) expect(n).toBeLessThanOrEqual(3);
  }, 10_000);
});
