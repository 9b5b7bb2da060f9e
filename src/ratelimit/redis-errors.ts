import { ReplyError } from 'ioredis';
import { DependencyError } from '../errors/index.js';

/**
 * Replies a server gives while a failover is under way: a master demoted to a replica (READONLY),
 * a master that lost its link (MASTERDOWN), a cluster shard without a master (CLUSTERDOWN), keys
 * in migration (TRYAGAIN), a server loading its data (LOADING). Redis is away for now, not wrong.
 */
const FAILOVER_REPLIES = new Set(['READONLY', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'LOADING']);

/**
 * A Redis reply error (the server answered "ERR ...") is a bug on our side and stays as it is,
 * unless it is a failover's (FAILOVER_REPLIES); anything else from the client (closed
 * connection, offline queue disabled, timeout) means Redis is unreachable.
 */
export function asRedisDependencyError(err: unknown): unknown {
  if (err instanceof ReplyError && !FAILOVER_REPLIES.has(redisErrorCode(err) ?? '')) return err;
  return new DependencyError('redis', err);
}

/** The error code a Redis error reply starts with (BUSYGROUP, NOGROUP, ...), if it is one. */
export function redisErrorCode(err: unknown): string | undefined {
  return err instanceof ReplyError && err instanceof Error ? /^[A-Z]+/.exec(err.message)?.[0] : undefined;
}

/** Runs `call`, turning an unreachable Redis into DependencyError (503) as asRedisDependencyError does. */
export async function orRedisDown<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}
