import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../log/logger.js';
import { errorEnvelope, newErrorId, toHeraldError } from '../envelope.js';
import { pickLang } from '../lang.js';
import type { HeraldState } from '../state.js';

const REQUEST_ID = /^[\w.-]{1,64}$/;

/**
 * Outermost middleware: request id and language, then the one error-to-envelope mapping, then
 * one log line per request. Logging is kept apart from responding: the line is written after
 * the response is settled, with the route pattern and path only (never the query string,
 * which can hold a pipe token, and never headers).
 */
export function requestContext(log: Logger): Middleware<HeraldState> {
  return async (ctx, next) => {
    const started = performance.now();
    const given = ctx.get('X-Request-Id');
    ctx.state.requestId = REQUEST_ID.test(given) ? given : randomUUID();
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
    const fields = {
      request_id: ctx.state.requestId,
      method: ctx.method,
      route: (ctx as { _matchedRoute?: string })._matchedRoute ?? null,
      path: ctx.path,
      status: ctx.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      ...(ctx.state.errorId ? { error_id: ctx.state.errorId, error: failure } : {}),
    };
    if (ctx.status >= 500) log.error('request', fields);
    else log.info('request', fields);
  };
}
