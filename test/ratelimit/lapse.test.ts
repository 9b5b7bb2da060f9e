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

describe('late claims', () => {
  // A late claim that charged again and re-reserved at the back, with every claim late, would
  // keep the bucket in debt for ever.
  it('a backlog whose claims all come 150 ms after their turn still drains, each message refused once', async () => {
    const key = `${file.prefix}:rl:msg:bot`;
    const limit = { capacity: 1, perSecond: 10 };
    // Tries each message needed to be allowed: refused (a turn), then allowed late, not charged
    // again; claims 100 ms apart may find the refill a hair short and wait for it (one more try).
    const started = performance.now();
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
    // Two turns of 100 ms, 150 ms late: paid twice, the last would wait behind its own new debt.
    expect(performance.now() - started).toBeLessThan(1_500);
  }, 10_000);
});
