import type { Middleware } from 'koa';
import type { Logger } from '../../log/logger.js';
import { errorEnvelope, newErrorId, toHeraldError } from '../envelope.js';
import { pickLang } from '../lang.js';
import { logRequest, requestIdFrom } from '../request-log.js';
import type { HeraldState } from '../state.js';

/**
 * Outermost middleware: request id and language, then the one error-to-envelope mapping, then
 * one log line per request. Logging is kept apart from responding: the line is written after
 * the response is settled.
 */
export function requestContext(log: Logger): Middleware<HeraldState> {
  return async (ctx, next) => {
    const startedAt = performance.now();
    ctx.state.requestId = requestIdFrom(ctx.get('X-Request-Id'));
    ctx.state.lang = pickLang(ctx.get('Accept-Language'));
    ctx.set('X-Request-Id', ctx.state.requestId);
    let failure: unknown;
    try {
      await next();
    } catch (err) {
      failure = err;
      const herr = toHeraldError(err);
      if (herr.status >= 500) ctx.state.errorId = newErrorId();
      ctx.status = herr.status;
      ctx.body = errorEnvelope(herr, ctx.state.lang, ctx.state.errorId);
    }
    // An answer given before the whole body arrived (refused for its size or its credentials)
    // closes the connection: Node would otherwise read the rest, however long, to reuse it.
    if (!ctx.req.complete) ctx.set('Connection', 'close');
    logRequest(log, {
      requestId: ctx.state.requestId,
      method: ctx.method,
      route: (ctx as { _matchedRoute?: string })._matchedRoute ?? null,
      path: ctx.path,
      status: ctx.status,
      startedAt,
      errorId: ctx.state.errorId,
      failure,
    });
  };
}
