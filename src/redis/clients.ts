import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config/index.js';

/*
 * Every Redis connection Herald opens is made here, so that one place decides how each kind of
 * connection behaves while Redis is away, and how it reaches Redis (REDIS_MODE): one server, a
 * Redis Cluster (an ioredis Cluster, which follows MOVED/ASK and the cluster's failovers), or the
 * master a set of sentinels names (ioredis asks them again after every disconnect, so a failover
 * is followed without a restart).
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

export type RedisConfig = Pick<
  Config,
  'redisUrl' | 'dbTimeoutMs' | 'redisMode' | 'redisNodes' | 'redisSentinelName'
>;

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

/** User, password, db and TLS of REDIS_URL, for the nodes a cluster or the sentinels name. */
function credentials(redisUrl: string): RedisOptions {
  const u = new URL(redisUrl);
  const db = Number(u.pathname.replace(/^\//, '') || 0);
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db > 0 ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * A replica that was the master answers writes with READONLY until the client has moved on
 * (Sentinel's switch): reconnect (to the master the sentinels now name). A client that retries
 * forever sends the command again there (2); a request's client does not (1), so the request
 * fails now and answers 503 rather than wait.
 */
const reconnectOnReadonly =
  (resend: boolean) =>
  (err: Error): 1 | 2 | false =>
    err.message.startsWith('READONLY') ? (resend ? 2 : 1) : false;

/**
 * A client of `role`, not yet connected (call `connect()`). On a cluster it is an ioredis Cluster
 * typed as a Redis: Herald uses the command surface both share (commands, defineCommand, multi
 * and pipeline within one slot, connect/quit/disconnect/duplicate, events), and BullMQ takes
 * either. Code that must tell them apart asks isCluster.
 */
export function createRedis(config: RedisConfig, role: RedisRole, extra: RedisOptions = {}): Redis {
  const options = redisOptions(config, role, extra);
  const resend = options.maxRetriesPerRequest === null;
  switch (config.redisMode) {
    case 'standalone':
      return new Redis(config.redisUrl, options);
    case 'sentinel':
      return new Redis({
        ...credentials(config.redisUrl),
        ...options,
        sentinels: config.redisNodes.map((n) => ({ host: n.host, port: n.port })),
        name: config.redisSentinelName,
        // Sentinel announces a switch on pub/sub: the client moves on it rather than on its next error.
        failoverDetector: true,
        reconnectOnError: reconnectOnReadonly(resend),
      });
    case 'cluster': {
      const { lazyConnect, enableOfflineQueue, ...perNode } = options;
      const clusterOptions: ClusterOptions = {
        lazyConnect: lazyConnect ?? true,
        enableOfflineQueue: enableOfflineQueue ?? true,
        // A shard's failover moves its slots: redirections follow it within one command's tries.
        maxRedirections: 16,
        retryDelayOnFailover: 100,
        retryDelayOnClusterDown: 100,
        redisOptions: { ...credentials(config.redisUrl), ...perNode },
      };
      // BullMQ reads maxRetriesPerRequest from the cluster's options as well as the nodes'.
      (clusterOptions as ClusterOptions & { maxRetriesPerRequest?: number | null }).maxRetriesPerRequest =
        options.maxRetriesPerRequest;
      const nodes = config.redisNodes.map((n) => ({ host: n.host, port: n.port }));
      return new Cluster(nodes, clusterOptions) as unknown as Redis;
    }
  }
}

/** Whether `redis` is a cluster client: a MULTI or pipeline then holds keys of one slot only. */
export function isCluster(redis: Redis): boolean {
  return (redis as unknown as { isCluster?: boolean }).isCluster === true;
}
