import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';

/** Thrown at start-up when Redis could evict queue keys; the worker refuses to run. */
export class RedisPolicyError extends Error {
  override readonly name = 'RedisPolicyError';
}

/**
 * Refuses a Redis whose maxmemory-policy is anything but `noeviction`: under memory pressure an
 * evicting policy silently drops queue keys, i.e. accepted messages. Warns when AOF persistence is
 * off (a Redis restart would lose recent jobs). Managed Redis services often forbid CONFIG; then
 * the check is skipped with a warning, since the operator may have set the policy elsewhere.
 */
export async function checkRedisPolicy(redis: Redis, log: Logger): Promise<void> {
  let policy: string | undefined;
  let aof: string | undefined;
  try {
    const p = (await redis.config('GET', 'maxmemory-policy')) as string[];
    const a = (await redis.config('GET', 'appendonly')) as string[];
    policy = p[1];
    aof = a[1];
  } catch (err) {
    log.warn('redis: CONFIG GET is not allowed; cannot check maxmemory-policy and persistence', {
      error: err instanceof Error ? err.message : String(err),
    });
    return;
  }
  if (policy !== undefined && policy !== 'noeviction') {
    throw new RedisPolicyError(
      `redis maxmemory-policy is "${policy}": it can evict queued messages; set it to "noeviction"`,
    );
  }
  if (aof !== 'yes') {
    log.warn('redis: AOF persistence is off (appendonly no); a Redis restart can lose queued messages');
  }
}
