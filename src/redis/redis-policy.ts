import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';

/** Thrown at start-up when Redis could evict queue keys; web and worker processes refuse to run. */
export class RedisPolicyError extends Error {
  override readonly name = 'RedisPolicyError';
}

/** The `field:value` lines of an INFO section. */
function infoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

/**
 * Refuses a Redis whose maxmemory-policy is anything but `noeviction`: under memory pressure an
 * evicting policy silently drops queue keys, i.e. accepted messages. Warns when AOF persistence is
 * off (a Redis restart would lose recent jobs). Read from INFO rather than CONFIG GET: managed
 * Redis services often forbid CONFIG, while INFO is always there (BullMQ itself needs it). Only
 * a server whose INFO names no policy at all (a Redis-compatible server of another kind) starts
 * with a warning. Both process types ask: the web process writes the accepted jobs, the worker
 * keeps them (and each would otherwise run alone on an evicting Redis while the other refused).
 */
export async function checkRedisPolicy(redis: Redis, log: Logger): Promise<void> {
  const memory = infoFields(await redis.info('memory'));
  const persistence = infoFields(await redis.info('persistence'));
  const policy = memory.get('maxmemory_policy');
  if (policy === undefined) {
    log.warn('redis: INFO names no maxmemory_policy; cannot check that queue keys are never evicted');
  } else if (policy !== 'noeviction') {
    throw new RedisPolicyError(
      `redis maxmemory-policy is "${policy}": it can evict queued messages; set it to "noeviction"`,
    );
  }
  if (persistence.get('aof_enabled') !== '1') {
    log.warn('redis: AOF persistence is off (appendonly no); a Redis restart can lose queued messages');
  }
}
