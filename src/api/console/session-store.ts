import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../../domain/deps.js';
import { orRedisDown } from '../../ratelimit/redis-errors.js';
import { consoleSessionKey } from '../../redis/keys.js';

/** What Redis keeps of a console session, under the SHA-256 of its cookie value. */
export interface ConsoleSession {
  readonly csrf_token: string;
  /** When it was signed in, in ms since the epoch. */
  readonly created_at: number;
}

type SessionDeps = Pick<Deps, 'config' | 'redis' | 'now'>;

const keyOf = (deps: SessionDeps, cookie: string): string =>
  consoleSessionKey(deps.config.redisPrefix, createHash('sha256').update(cookie).digest('hex'));

const idleMs = (deps: SessionDeps): number => deps.config.consoleSessionIdleS * 1000;

/** A new session: the cookie value (for the browser only) and what Redis keeps. */
export async function createSession(deps: SessionDeps): Promise<{ cookie: string; session: ConsoleSession }> {
  const cookie = randomBytes(32).toString('base64url');
  const session: ConsoleSession = {
    csrf_token: randomBytes(32).toString('base64url'),
    created_at: deps.now(),
  };
  await orRedisDown(() => deps.redis.set(keyOf(deps, cookie), JSON.stringify(session), 'PX', idleMs(deps)));
  return { cookie, session };
}

/** The session of a cookie, its idle expiry renewed; undefined when it expired or never was. */
export async function touchSession(deps: SessionDeps, cookie: string): Promise<ConsoleSession | undefined> {
  const raw = await orRedisDown(() => deps.redis.getex(keyOf(deps, cookie), 'PX', idleMs(deps)));
  return raw === null ? undefined : (JSON.parse(raw) as ConsoleSession);
}

export async function endSession(deps: SessionDeps, cookie: string): Promise<void> {
  await orRedisDown(() => deps.redis.del(keyOf(deps, cookie)));
}
