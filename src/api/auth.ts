import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { authenticateBot } from '../domain/bots.js';
import type { Deps } from '../domain/deps.js';
import type { StudioScope } from '../domain/templates/studio.js';
import { HeraldError } from '../errors/index.js';
import { takeTokens } from '../ratelimit/token-bucket.js';
import { botRestBucketKey } from '../redis/keys.js';
import type { BotRecord } from '../store/index.js';
import { readSessionCookie } from './console/cookie.js';
import { csrfMatches, isStateChanging } from './console/csrf.js';
import { touchSession } from './console/session-store.js';
import { jsonBody } from './middleware/json-body.js';
import { rateLimitHeaders, refuseIfLimited } from './rate-headers.js';
import type { HeraldState } from './state.js';

/** The credential of `Authorization: <scheme> <credential>`, scheme case-insensitive. */
export function credential(header: string | undefined, scheme: string): string | undefined {
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return undefined;
  const value = header.slice(space + 1).trim();
  return value === '' ? undefined : value;
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

/*
 * Credentials come before the body: both guards below read the request's JSON body (json-body.ts)
 * only once the caller is known (and, for bots, within budget), so a caller without them never
 * has a big or slow body read. Every route that takes a body has one of them.
 */

/** Whether `given` is the operators' token, compared in constant time. */
export function adminTokenCheck(deps: Deps): (given: string) => boolean {
  const expected = sha256(deps.config.adminToken);
  return (given) => timingSafeEqual(sha256(given), expected);
}

/**
 * Who calls the admin API: the operators' token (`Authorization: Bearer <ADMIN_TOKEN>`, scripts),
 * else the console's session cookie (src/api/console), an operator's or a bot's (the studio's).
 * A cookie is sent by the browser whoever made the page, so a state change authenticated by it
 * must also carry the session's X-CSRF-Token, which only the console's own page can read. Answers
 * the bot of a bot session, null for an operator; throws when the caller is neither.
 */
function consoleCaller(deps: Deps): (ctx: Context) => Promise<BotRecord | null> {
  const isAdminToken = adminTokenCheck(deps);
  return async (ctx) => {
    const given = credential(ctx.get('Authorization'), 'Bearer');
    if (given !== undefined) {
      if (!isAdminToken(given)) throw new HeraldError('INVALID_TOKEN');
      return null;
    }
    const cookie = deps.config.console ? readSessionCookie(ctx, deps.config.consoleSecureCookie) : undefined;
    const active = cookie === undefined ? undefined : await touchSession(deps, cookie);
    if (active === undefined) throw new HeraldError('UNAUTHENTICATED');
    if (isStateChanging(ctx.method) && !csrfMatches(ctx.get('X-CSRF-Token'), active.session.csrf_token)) {
      throw new HeraldError('CSRF_REJECTED');
    }
    return active.bot;
  };
}

/**
 * Operators only (consoleCaller): a bot session is a known caller that may not do this, 403
 * FORBIDDEN. Throws when the caller is not an operator.
 */
export function adminAuthenticator(deps: Deps): (ctx: Context) => Promise<void> {
  const caller = consoleCaller(deps);
  return async (ctx) => {
    if ((await caller(ctx)) !== null) throw new HeraldError('FORBIDDEN');
  };
}

/** The admin API's guard: an operator (adminAuthenticator), then the body. */
export function requireAdmin(deps: Deps): Middleware<HeraldState> {
  const authenticate = adminAuthenticator(deps);
  const body = jsonBody(deps.config.bodyLimitBytes);
  return async (ctx, next) => {
    await authenticate(ctx);
    await body(ctx, next);
  };
}

/** The scope of a request that passed requireStudio: its bot session's bot, or every bot (an operator). */
export const studioScope = (state: HeraldState): StudioScope => ({
  botId: state.studio?.botId ?? null,
  bot: state.studio?.bot ?? null,
});

/**
 * Takes one call from a bot's REST budget for `bucket` (a Redis token bucket shared by every web
 * process), sets the X-Rate-Limit-* headers (on every answer, the 429 included, as the platform's
 * clients expect) and refuses with 429 when the bucket is empty. The one meter of the bot API,
 * the studio's bot sessions and the studio's test sends.
 */
export function botMeter(deps: Deps): (ctx: Context, botId: string, bucket: string) => Promise<void> {
  const limit = { capacity: deps.config.botRateBurst, perSecond: deps.config.botRatePerSecond };
  return async (ctx, botId, bucket) => {
    const r = await takeTokens(deps.redis, botRestBucketKey(deps.config.redisPrefix, botId, bucket), limit);
    ctx.set(rateLimitHeaders(r, bucket));
    refuseIfLimited(r);
  };
}

/**
 * The template studio's guard (/admin/api/template/*): an operator, or a bot session, which sees
 * only its own bot's templates. Leaves `ctx.state.studio` (botId null for an operator), then
 * reads the body. With `bucket`, a bot session's calls take the bot's REST budget for that
 * bucket, as the bot's own calls to the same work do (requireBot); operators are not metered.
 */
export function requireStudio(deps: Deps, bucket?: string): Middleware<HeraldState> {
  const caller = consoleCaller(deps);
  const body = jsonBody(deps.config.bodyLimitBytes);
  const meter = botMeter(deps);
  return async (ctx, next) => {
    const bot = await caller(ctx);
    if (bot && bucket !== undefined) await meter(ctx, bot.id, bucket);
    ctx.state.studio = { botId: bot?.id ?? null, bot };
    await body(ctx, next);
  };
}

/** Bots: `Authorization: Bot <token>`, then the bot's REST budget for this route (botMeter). */
export function requireBot(deps: Deps, bucket: string): Middleware<HeraldState> {
  const meter = botMeter(deps);
  const body = jsonBody(deps.config.bodyLimitBytes);
  return async (ctx, next) => {
    const token = credential(ctx.get('Authorization'), 'Bot');
    if (token === undefined) throw new HeraldError('UNAUTHENTICATED');
    const bot = await authenticateBot(deps, token);
    await meter(ctx, bot.id, bucket);
    ctx.state.bot = bot;
    await body(ctx, next);
  };
}
