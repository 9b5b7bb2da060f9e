import type { Middleware } from 'koa';
import { readJsonBody } from '../read-json-body.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body of a POST, PUT or PATCH (`{}` when it has none). */
    body?: unknown;
    /** Its text as received (decoded), for handlers that read it again; undefined when empty. */
    rawBody?: string;
  }
}

/**
 * POST, PUT and PATCH bodies are JSON objects or arrays, nothing else, read by the same reader
 * as send-pipemsg's (read-json-body.ts): a form or text body is 415, bad JSON 400, a body over
 * the limit 413. The credential guards (auth.ts) run it once the caller is known.
 */
export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') return next();
    const body = await readJsonBody(ctx.req, limitBytes);
    ctx.request.body = body.value;
    ctx.request.rawBody = body.text === '' ? undefined : body.text;
    return next();
  };
}
