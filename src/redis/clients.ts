import { Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config/index.js';

/*
 * Every Redis connection Herald opens is made here, so that one place decides how each kind of
 * connection behaves while Redis is away (and, later, how it reaches a cluster or a sentinel).
 */

/**
 * - `request`: what an HTTP answer waits on. No offline queue and one retry, so that while Redis
 *   is away a call fails at once (503) instead of waiting in a client-side buffer; and a command
 *   without an answer after DB_TIMEOUT_MS fails too (Redis keeps the connection but stopped
 *   answering).
 * - `command`: what a job step waits on: as `request`, but without the deadline. Jobs wait out
 *   outages themselves (workers/recovery/dependency-wait.ts), and a step given up on whose write lands
 *   later must not look like a failed delivery.
 * - `blocking`: BullMQ's consumer and other blocking readers; retries forever, as BullMQ requires.
 * - `subscriber`: pub/sub; retries forever. An owner that resubscribes itself (it must know
 *   when it was cut off) turns ioredis's own resubscribe off through `extra`.
 */
export type RedisRole = 'request' | 'command' | 'blocking' | 'subscriber';

export type RedisConfig = Pick<Config, 'redisUrl' | 'dbTimeoutMs'>;

/** The options of a client of `role`; `extra` adds to them (a connection name, say). */
export function redisOptions(config: RedisConfig, role: RedisRole, extra: RedisOptions = {}): RedisOptions {
  // A connection a request or a step waits on gives up connecting at DB_TIMEOUT_MS; one that
  // retries forever keeps ioredis's own connect timeout.
  const common: RedisOptions = { lazyConnect: true };
  const bounded: RedisOptions = { ...common, connectTimeout: config.dbTimeoutMs };
  switch (role) {
    case 'request':
      return {
        ...bounded,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: config.dbTimeoutMs,
        ...extra,
      };
    case 'command':
      return { ...bounded, enableOfflineQueue: false, maxRetriesPerRequest: 1, ...extra };
    case 'blocking':
    case 'subscriber':
      return { ...common, maxRetriesPerRequest: null, ...extra };
  }
}

/** A client of `role`, not yet connected (call `connect()`). */
export function createRedis(config: RedisConfig, role: RedisRole, extra: RedisOptions = {}): Redis {
  return new Redis(config.redisUrl, redisOptions(config, role, extra));
}
