import { Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config/index.js';

/*
 * Every Redis connection Herald opens is made here, so that one place decides how each kind of
 * connection behaves while Redis is away (and, later, how it reaches a cluster or a sentinel).
 */

/**
 * - `command`: what a request or a job step waits on. No offline queue and one retry, so that
 *   while Redis is away a call fails at once (a request answers 503) instead of waiting in a
 *   client-side buffer.
 * - `blocking`: BullMQ's consumer and other blocking readers; retries forever, as BullMQ requires.
 * - `subscriber`: pub/sub; retries forever. An owner that resubscribes itself (it must know
 *   when it was cut off) turns ioredis's own resubscribe off through `extra`.
 */
export type RedisRole = 'command' | 'blocking' | 'subscriber';

export type RedisConfig = Pick<Config, 'redisUrl' | 'dbTimeoutMs'>;

/** The options of a client of `role`; `extra` adds to them (a connection name, say). */
export function redisOptions(config: RedisConfig, role: RedisRole, extra: RedisOptions = {}): RedisOptions {
  const common: RedisOptions = { lazyConnect: true, connectTimeout: config.dbTimeoutMs };
  switch (role) {
    case 'command':
      return { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 1, ...extra };
    case 'blocking':
    case 'subscriber':
      return { ...common, maxRetriesPerRequest: null, ...extra };
  }
}

/** A client of `role`, not yet connected (call `connect()`). */
export function createRedis(config: RedisConfig, role: RedisRole, extra: RedisOptions = {}): Redis {
  return new Redis(config.redisUrl, redisOptions(config, role, extra));
}
