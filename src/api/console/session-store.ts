import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../../domain/deps.js';
import { orRedisDown } from '../../ratelimit/redis-errors.js';
import { consoleSessionKey } from '../../redis/keys.js';

/** What Redis keeps of a console session, under the SHA-256 of its cookie value. */
export interface ConsoleSession {
  readonly csrf_token: string;
  /** When it was signed in, in ms since the epoch; it ends CONSOLE_SESSION_MAX_S after. */
  readonly created_at: number;
  /** tokenMac of the cookie and the ADMIN_TOKEN it was signed in with (base64url). */
  readonly token_mac: string;
}

type SessionDeps = Pick<Deps, 'config' | 'redis' | 'now'>;

const keyOf = (deps: SessionDeps, cookie: string): string =>
  consoleSessionKey(deps.config.redisPrefix, createHash('sha256').update(cookie).digest('hex'));

const idleMs = (deps: SessionDeps): number => deps.config.consoleSessionIdleS * 1000;

/**
 * The fingerprint of the operators' token a session keeps, so that a change of ADMIN_TOKEN ends
 * the sessions signed in with the old one: HMAC-SHA256 of the token keyed by the cookie value.
 * The key is in no store (Redis has only the cookie's hash), so a read of Redis cannot be used to
 * test guesses of the token, as a plain hash of it could.
 */
const tokenMac = (cookie: string, adminToken: string): Buffer =>
  createHmac('sha256', cookie).update(adminToken).digest();

/** Whether a stored session still holds: signed in with the current ADMIN_TOKEN, within its lifetime. */
function holds(deps: SessionDeps, cookie: string, session: Partial<ConsoleSession>): boolean {
  if (typeof session.created_at !== 'number' || typeof session.token_mac !== 'string') return false;
  if (deps.now() - session.created_at >= deps.config.consoleSessionMaxS * 1000) return false;
  const stored = Buffer.from(session.token_mac, 'base64url');
  const expected = tokenMac(cookie, deps.config.adminToken);
  return stored.length === expected.length && timingSafeEqual(stored, expected);
}

/** A new session: the cookie value (for the browser only) and what Redis keeps. */
export async function createSession(deps: SessionDeps): Promise<{ cookie: string; session: ConsoleSession }> {
  const cookie = randomBytes(32).toString('base64url');
  const session: ConsoleSession = {
    csrf_token: randomBytes(32).toString('base64url'),
    created_at: deps.now(),
    token_mac: tokenMac(cookie, deps.config.adminToken).toString('base64url'),
  };
  await orRedisDown(() => deps.redis.set(keyOf(deps, cookie), JSON.stringify(session), 'PX', idleMs(deps)));
  return { cookie, session };
}

/**
 * The session of a cookie, its idle expiry renewed; undefined when it expired or never was. One
 * signed in with another ADMIN_TOKEN, or past CONSOLE_SESSION_MAX_S, is deleted and undefined.
 * (The renewal may set the key to outlive that lifetime by up to the idle time; it is refused
 * all the same.)
 */
export async function touchSession(deps: SessionDeps, cookie: string): Promise<ConsoleSession | undefined> {
  const raw = await orRedisDown(() => deps.redis.getex(keyOf(deps, cookie), 'PX', idleMs(deps)));
  if (raw === null) return undefined;
  const session = JSON.parse(raw) as ConsoleSession;
  if (holds(deps, cookie, session)) return session;
  await endSession(deps, cookie);
  return undefined;
}

export async function endSession(deps: SessionDeps, cookie: string): Promise<void> {
  await orRedisDown(() => deps.redis.del(keyOf(deps, cookie)));
}
