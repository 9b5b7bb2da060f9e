import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Deps } from '../../domain/deps.js';
import { HeraldError } from '../../errors/index.js';
import { adminTokenCheck } from '../auth.js';
import { readJsonBody } from '../read-json-body.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator } from '../validation.js';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from './cookie.js';
import { csrfMatches } from './csrf.js';
import { type ConsoleSession, createSession, endSession, touchSession } from './session-store.js';
import { countSignInTry, forgiveSignIn } from './throttle.js';

export const SESSION_PATH = '/console/api/session';
/** A sign-in body is one token: anything much bigger is not one, and is not read. */
const SIGN_IN_BODY_LIMIT_BYTES = 4096;

const signInBody = compileValidator<{ token: string }>({
  type: 'object',
  properties: { token: { type: 'string', minLength: 1, maxLength: 1024 } },
  required: ['token'],
});

/**
 * The console's sign-in: POST trades the operators' token for a session cookie, GET reads the
 * session (the app keeps its CSRF token in memory only, so a reload asks again), DELETE signs out.
 */
export function consoleSessionRoutes(router: Router<HeraldState>, deps: Deps): void {
  const isAdminToken = adminTokenCheck(deps);
  const secure = deps.config.consoleSecureCookie;
  const answer = (ctx: Context & { state: HeraldState }, session: ConsoleSession) =>
    reply(ctx, { csrf_token: session.csrf_token, idle_timeout_s: deps.config.consoleSessionIdleS });

  router.post(SESSION_PATH, async (ctx) => {
    // Counted before the body is read: a refused address costs one Redis call, nothing more.
    const retryAfter = await countSignInTry(deps, ctx.ip);
    if (retryAfter !== undefined) {
      ctx.set('Retry-After', String(retryAfter));
      throw new HeraldError('SIGN_IN_THROTTLED', { retry_after: retryAfter });
    }
    const { token } = signInBody((await readJsonBody(ctx.req, SIGN_IN_BODY_LIMIT_BYTES)).value);
    if (!isAdminToken(token)) throw new HeraldError('INVALID_TOKEN');
    await forgiveSignIn(deps, ctx.ip);
    const previous = readSessionCookie(ctx);
    if (previous !== undefined) await endSession(deps, previous);
    const { cookie, session } = await createSession(deps);
    setSessionCookie(ctx, cookie, secure);
    answer(ctx, session);
  });

  router.get(SESSION_PATH, async (ctx) => {
    answer(ctx, await currentSession(ctx));
  });

  router.delete(SESSION_PATH, async (ctx) => {
    const session = await currentSession(ctx);
    if (!csrfMatches(ctx.get('X-CSRF-Token'), session.csrf_token)) throw new HeraldError('CSRF_REJECTED');
    await endSession(deps, readSessionCookie(ctx) as string);
    clearSessionCookie(ctx, secure);
    reply(ctx);
  });

  async function currentSession(ctx: Context): Promise<ConsoleSession> {
    const cookie = readSessionCookie(ctx);
    const session = cookie === undefined ? undefined : await touchSession(deps, cookie);
    if (session === undefined) throw new HeraldError('UNAUTHENTICATED');
    return session;
  }
}
