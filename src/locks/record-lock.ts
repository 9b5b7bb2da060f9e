import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { HeraldError } from '../errors/index.js';
import { asRedisDependencyError } from '../ratelimit/redis-errors.js';

const RELEASE_LUA = readFileSync(new URL('./release-lock.lua', import.meta.url), 'utf8');
const RELEASE = 'heraldReleaseLock';

export interface LockOptions {
  /** How long the lock lives if its holder dies, in ms. Longer than any store call. */
  readonly ttlMs: number;
  /** How long to wait for a busy lock before giving up with 409, in ms. */
  readonly waitMs: number;
}

/** Defaults for one record's write: a store call is bounded by the DB timeout (2 s default). */
export const RECORD_LOCK: LockOptions = { ttlMs: 10_000, waitMs: 3_000 };

/** Pause between tries on a busy lock, in ms (jittered so waiters do not move in step). */
const RETRY_MS = 5;

type ReleaseCommand = (key: string, owner: string) => Promise<number>;

/**
 * Runs `fn` while holding a Redis lock on `key`, across every process.
 *
 * Why this exists: FerretDB v1 applies update operators as a read of the document followed by
 * a whole-document write in a separate step (internal/handler/msg_findandmodify.go and the
 * SQLite backend's UpdateAll), so two concurrent `$set`s on one record can lose a field. On
 * MongoDB each update is atomic on its own; the lock costs two round-trips there and makes
 * "concurrent updates lose nothing" true on both.
 */
export async function withRecordLock<T>(
  redis: Redis,
  key: string,
  fn: () => Promise<T>,
  options: LockOptions = RECORD_LOCK,
): Promise<T> {
  const owner = randomBytes(12).toString('base64url');
  const deadline = Date.now() + options.waitMs;
  try {
    while ((await redis.set(key, owner, 'PX', options.ttlMs, 'NX')) !== 'OK') {
      if (Date.now() >= deadline) {
        throw new HeraldError('CONFLICT', {
          detail: {
            'zh-CN': '该记录正被另一个请求修改，请重试',
            'en-US': 'the record is being changed by another request; retry',
          },
        });
      }
      await sleep(RETRY_MS + Math.random() * RETRY_MS);
    }
  } catch (err) {
    throw err instanceof HeraldError ? err : asRedisDependencyError(err);
  }
  try {
    return await fn();
  } finally {
    const client = redis as Redis & Record<string, ReleaseCommand | undefined>;
    if (!client[RELEASE]) redis.defineCommand(RELEASE, { numberOfKeys: 1, lua: RELEASE_LUA });
    // A failed release only delays the next writer until the TTL; it must not fail this write.
    await (client[RELEASE] as ReleaseCommand)(key, owner).catch(() => {});
  }
}
