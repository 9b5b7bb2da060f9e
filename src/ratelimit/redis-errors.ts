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
