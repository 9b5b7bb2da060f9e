import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeraldError } from '../../src/errors/index.js';
import { withRecordLock } from '../../src/locks/record-lock.js';
import { uniqueName } from '../helpers/test-app.js';

const prefix = `herald-test-${uniqueName('lock')}`;
let redis: Redis;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('withRecordLock', () => {
  it('runs holders one at a time', async () => {
    let inside = 0;
    let most = 0;
    const work = () =>
      withRecordLock(redis, `${prefix}:a`, async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 5));
        inside--;
      });
    await Promise.all(Array.from({ length: 10 }, work));
    expect(most).toBe(1);
    expect(await redis.exists(`${prefix}:a`)).toBe(0);
  });

  it('releases the lock when the work throws', async () => {
    await expect(
      withRecordLock(redis, `${prefix}:b`, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await redis.exists(`${prefix}:b`)).toBe(0);
  });

  it('gives up with 409 when the lock stays busy', async () => {
    await redis.set(`${prefix}:c`, 'someone-else', 'PX', 5_000);
    const err = await withRecordLock(redis, `${prefix}:c`, async () => 1, { ttlMs: 1_000, waitMs: 50 }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(HeraldError);
    expect((err as HeraldError).status).toBe(409);
    expect(await redis.get(`${prefix}:c`)).toBe('someone-else');
  });
});
