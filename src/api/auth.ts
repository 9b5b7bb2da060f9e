import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { authenticateBot } from '../domain/bots.js';
import type { Deps } from '../domain/deps.js';
import { HeraldError } from '../errors/index.js';
import { takeTokens } from '../ratelimit/token-bucket.js';
import { botRestBucketKey } from '../redis/keys.js';
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

/** Operators: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
export function requireAdmin(deps: Deps): Middleware<HeraldState> {
  const expected = sha256(deps.config.adminToken);
  const body = jsonBody(deps.config.bodyLimitBytes);
  return async (ctx, next) => {
    const given = credential(ctx.get('Authorization'), 'Bearer');
    if (given === undefined) throw new HeraldError('UNAUTHENTICATED');
    if (!timingSafeEqual(sha256(given), expected)) throw new HeraldError('INVALID_TOKEN');
    await body(ctx, next);
  };
}

/**
 * Bots: `Authorization: Bot <token>`, then the bot's REST budget for this route (a Redis token
 * bucket shared by every web process). The X-Rate-Limit-* headers are on every answer,
 * the 429 included, as the platform's clients expect.
 */
export function requireBot(deps: Deps, bucket: string): Middleware<HeraldState> {
  const limit = { capacity: deps.config.botRateBurst, perSecond: deps.config.botRatePerSecond };
  const body = jsonBody(deps.config.bodyLimitBytes);
  return async (ctx, next) => {
    const token = credential(ctx.get('Authorization'), 'Bot');
    if (token === undefined) throw new HeraldError('UNAUTHENTICATED');
    const bot = await authenticateBot(deps, token);
    const r = await takeTokens(deps.redis, botRestBucketKey(deps.config.redisPrefix, bot.id, bucket), limit);
    ctx.set(rateLimitHeaders(r, bucket));
    refuseIfLimited(r);
    ctx.state.bot = bot;
    await body(ctx, next);
  };
}
