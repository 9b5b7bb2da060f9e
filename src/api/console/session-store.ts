import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../../domain/deps.js';
import { orRedisDown } from '../../ratelimit/redis-errors.js';
import { consoleSessionKey } from '../../redis/keys.js';
import type { BotRecord } from '../../store/index.js';

/** Who a console session is: an operator (every bot) or one bot's developer (its templates only). */
export type ConsoleRole = 'operator' | 'bot';

/** What Redis keeps of a console session, under the SHA-256 of its cookie value. */
export interface ConsoleSession {
  readonly csrf_token: string;
  /** When it was signed in, in ms since the epoch; it ends CONSOLE_SESSION_MAX_S after. */
  readonly created_at: number;
  /**
   * tokenMac of the cookie and the credential it was signed in with (base64url): the ADMIN_TOKEN
   * for an operator, the bot's stored token hash for a bot session.
   */
  readonly token_mac: string;
  /** Absent on sessions from before bot sessions: an operator's. */
  readonly role?: ConsoleRole;
  /** A bot session's bot. */
  readonly bot_id?: string;
}

/** A session that holds, and for a bot session its bot as of this request. */
export interface ActiveSession {
  readonly session: ConsoleSession;
  readonly role: ConsoleRole;
  /** The bot of a bot session (enabled, its token unchanged since sign-in); null for an operator. */
  readonly bot: BotRecord | null;
}

/** Who signs in: an operator, or a bot with the token hash its record holds now. */
export type SignedInAs =
  | { readonly role: 'operator' }
  | { readonly role: 'bot'; readonly bot_id: string; readonly token_hash: string };

type SessionDeps = Pick<Deps, 'config' | 'redis' | 'now' | 'store'>;

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

/**
 * A bot session's fingerprint: the same HMAC over the bot's id and its stored token hash (never
 * the token, which is not kept anywhere). Rotating the token changes the hash, so the sessions
 * signed in with the old token stop holding, as a change of ADMIN_TOKEN ends operators' ones.
 */
const botTokenMac = (cookie: string, botId: string, tokenHash: string): Buffer =>
  tokenMac(cookie, `bot\u0000${botId}\u0000${tokenHash}`);

const macMatches = (storedText: string, expected: Buffer): boolean => {
  const stored = Buffer.from(storedText, 'base64url');
  return stored.length === expected.length && timingSafeEqual(stored, expected);
};

/**
 * Whether a stored session still holds, within its lifetime: an operator's signed in with the
 * current ADMIN_TOKEN; a bot's with its bot's current token, the bot still there and enabled (a
 * disabled bot's token signs nothing in, so its sessions end too). Answers the active session.
 */
async function holding(
  deps: SessionDeps,
  cookie: string,
  session: Partial<ConsoleSession>,
): Promise<ActiveSession | undefined> {
  if (typeof session.created_at !== 'number' || typeof session.token_mac !== 'string') return undefined;
  if (deps.now() - session.created_at >= deps.config.consoleSessionMaxS * 1000) return undefined;
  const whole = session as ConsoleSession;
  if (session.role === undefined || session.role === 'operator') {
    const holds = macMatches(session.token_mac, tokenMac(cookie, deps.config.adminToken));
    return holds ? { session: whole, role: 'operator', bot: null } : undefined;
  }
  if (session.role !== 'bot' || typeof session.bot_id !== 'string') return undefined;
  const found = await deps.store.bots.getWithTokenHash(session.bot_id);
  if (!found?.bot.enabled) return undefined;
  const holds = macMatches(session.token_mac, botTokenMac(cookie, found.bot.id, found.token_hash));
  return holds ? { session: whole, role: 'bot', bot: found.bot } : undefined;
}

/** A new session: the cookie value (for the browser only) and what Redis keeps. */
export async function createSession(
  deps: SessionDeps,
  as: SignedInAs = { role: 'operator' },
): Promise<{ cookie: string; session: ConsoleSession }> {
  const cookie = randomBytes(32).toString('base64url');
  const common = { csrf_token: randomBytes(32).toString('base64url'), created_at: deps.now() };
  const session: ConsoleSession =
    as.role === 'operator'
      ? {
          ...common,
          role: 'operator',
          token_mac: tokenMac(cookie, deps.config.adminToken).toString('base64url'),
        }
      : {
          ...common,
          role: 'bot',
          bot_id: as.bot_id,
          token_mac: botTokenMac(cookie, as.bot_id, as.token_hash).toString('base64url'),
        };
  await orRedisDown(() => deps.redis.set(keyOf(deps, cookie), JSON.stringify(session), 'PX', idleMs(deps)));
  return { cookie, session };
}

/**
 * The session of a cookie, its idle expiry renewed; undefined when it expired or never was. One
 * signed in with another ADMIN_TOKEN (an operator's) or another token of its bot (a bot
 * session's: rotated, or the bot deleted or disabled), or past CONSOLE_SESSION_MAX_S, is deleted
 * and undefined. (The renewal may set the key to outlive that lifetime by up to the idle time;
 * it is refused all the same.)
 */
export async function touchSession(deps: SessionDeps, cookie: string): Promise<ActiveSession | undefined> {
  const raw = await orRedisDown(() => deps.redis.getex(keyOf(deps, cookie), 'PX', idleMs(deps)));
  if (raw === null) return undefined;
  const active = await holding(deps, cookie, JSON.parse(raw) as Partial<ConsoleSession>);
  if (active) return active;
  await endSession(deps, cookie);
  return undefined;
}

export async function endSession(deps: SessionDeps, cookie: string): Promise<void> {
  await orRedisDown(() => deps.redis.del(keyOf(deps, cookie)));
}
