import { ReplyError } from 'ioredis';
import { DependencyError } from '../errors/index.js';

/**
 * A Redis reply error (the server answered "ERR ...") is a bug on our side and stays as it is;
 * anything else from the client (closed connection, offline queue disabled, timeout) means
 * Redis is unreachable.
 */
export function asRedisDependencyError(err: unknown): unknown {
  return err instanceof ReplyError ? err : new DependencyError('redis', err);
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
