import type Router from '@koa/router';
import type { Context } from 'koa';
import { authenticateBot } from '../../domain/bots.js';
import type { Deps } from '../../domain/deps.js';
import { hashToken } from '../../domain/tokens.js';
import { HeraldError } from '../../errors/index.js';
import type { BotRecord } from '../../store/index.js';
import { adminTokenCheck } from '../auth.js';
import { readJsonBody } from '../read-json-body.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator } from '../validation.js';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from './cookie.js';
import { csrfMatches } from './csrf.js';
import {
  type ActiveSession,
  createSession,
  endSession,
  type SignedInAs,
  touchSession,
} from './session-store.js';
import { countSignInTry, forgiveSignIn, takeBackSignInTry } from './throttle.js';

export const SESSION_PATH = '/console/api/session';
/** A sign-in body is one token: anything much bigger is not one, and is not read. */
const SIGN_IN_BODY_LIMIT_BYTES = 4096;

const signInBody = compileValidator<{ token: string; kind?: 'operator' | 'bot' }>({
  type: 'object',
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 1024 },
    kind: { type: 'string', enum: ['operator', 'bot'] },
  },
  required: ['token'],
});

/**
 * The console's sign-in: POST trades the operators' token (or, with `kind: 'bot'`, a bot's token)
 * for a session cookie, GET reads the session (the app keeps its CSRF token in memory only, so a
 * reload asks again), DELETE signs out. A bot session is the studio's: its bot's templates only.
 */
export function consoleSessionRoutes(router: Router<HeraldState>, deps: Deps): void {
  const isAdminToken = adminTokenCheck(deps);
  const secure = deps.config.consoleSecureCookie;
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const answer = (ctx: Context & { state: HeraldState }, active: ActiveSession) =>
    reply(ctx, {
      csrf_token: active.session.csrf_token,
      idle_timeout_s: deps.config.consoleSessionIdleS,
      role: active.role,
      ...(active.bot ? { bot: { id: active.bot.id, name: active.bot.name } } : {}),
    });

  /** Who the token signs in as; INVALID_TOKEN (or FORBIDDEN for a disabled bot) otherwise. */
  async function signedInAs(
    token: string,
    kind: 'operator' | 'bot',
  ): Promise<{ as: SignedInAs; bot: BotRecord | null }> {
    if (kind === 'operator') {
      if (!isAdminToken(token)) throw new HeraldError('INVALID_TOKEN');
      return { as: { role: 'operator' }, bot: null };
    }
    const bot = await authenticateBot(deps, token);
    // authenticateBot matched the token against the stored hash: this is that hash, as of the
    // token the developer holds (a rotation meanwhile makes the session end at its first use).
    return { as: { role: 'bot', bot_id: bot.id, token_hash: hashToken(token) }, bot };
  }

  router.post(SESSION_PATH, async (ctx) => {
    // What another site's page can make the operator's browser send is refused uncounted, so
    // that it cannot spend the operator's tries and lock them out.
    refuseForeignSignIn(ctx, publicOrigin);
    // Counted before the body is read: a refused address costs one Redis call, nothing more.
    const retryAfter = await countSignInTry(deps, ctx.ip);
    if (retryAfter !== undefined) {
      ctx.set('Retry-After', String(retryAfter));
      throw new HeraldError('SIGN_IN_THROTTLED', { retry_after: retryAfter });
    }
    const { token, kind } = signInBody((await readJsonBody(ctx.req, SIGN_IN_BODY_LIMIT_BYTES)).value);
    const who = await signedInAs(token, kind ?? 'operator');
    if (who.as.role === 'operator') await forgiveSignIn(deps, ctx.ip);
    else await takeBackSignInTry(deps, ctx.ip);
    const previous = readSessionCookie(ctx, secure);
    if (previous !== undefined) await endSession(deps, previous);
    const { cookie, session } = await createSession(deps, who.as);
    setSessionCookie(ctx, cookie, secure);
    answer(ctx, { session, role: who.as.role, bot: who.bot });
  });

  router.get(SESSION_PATH, async (ctx) => {
    answer(ctx, await currentSession(ctx));
  });

  router.delete(SESSION_PATH, async (ctx) => {
    const { session } = await currentSession(ctx);
    if (!csrfMatches(ctx.get('X-CSRF-Token'), session.csrf_token)) throw new HeraldError('CSRF_REJECTED');
    await endSession(deps, readSessionCookie(ctx, secure) as string);
    clearSessionCookie(ctx, secure);
    reply(ctx);
  });

  async function currentSession(ctx: Context): Promise<ActiveSession> {
    const cookie = readSessionCookie(ctx, secure);
    const session = cookie === undefined ? undefined : await touchSession(deps, cookie);
    if (session === undefined) throw new HeraldError('UNAUTHENTICATED');
    return session;
  }
}

/**
 * Refuses a sign-in that did not come from the console's own page, before it is counted. Another
 * site can make the operator's browser POST here without a preflight only with a form's or
 * text/plain's content type, so anything but application/json is 415; a browser's
 * `Sec-Fetch-Site` (cross-site or same-site) or an `Origin` other than this host's or PUBLIC_URL's
 * is 403. A request without those headers (a script, curl) goes on to be counted.
 */
function refuseForeignSignIn(ctx: Context, publicOrigin: string): void {
  const site = ctx.get('Sec-Fetch-Site').toLowerCase();
  if (site === 'cross-site' || site === 'same-site') throw new HeraldError('CROSS_SITE_REJECTED');
  const origin = ctx.get('Origin');
  if (origin !== '' && !isOwnOrigin(origin, ctx.host, publicOrigin)) {
    throw new HeraldError('CROSS_SITE_REJECTED');
  }
  if (!isPlainJson(ctx.get('Content-Type'))) throw new HeraldError('UNSUPPORTED_MEDIA_TYPE');
}

/** `application/json`, any case, any parameters; not the `+json` types other routes take. */
function isPlainJson(contentType: string): boolean {
  return contentType.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * Whether an Origin header is PUBLIC_URL's origin or names the host the request was sent to (the
 * Host header read under the Origin's scheme, so default ports compare equal). `null` never is.
 */
function isOwnOrigin(origin: string, host: string, publicOrigin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin === publicOrigin) return true;
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || host === '') return false;
  try {
    return new URL(`${url.protocol}//${host}`).host === url.host;
  } catch {
    return false;
  }
}
