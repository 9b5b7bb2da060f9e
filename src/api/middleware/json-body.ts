import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { HeraldError } from '../../errors/index.js';
import { bodyTooLarge, checkKeys, explainParseFailure, hasBody, isJsonContentType } from '../json-rules.js';

/**
 * POST bodies are JSON objects or arrays, nothing else: a form or text body is 415, bad JSON
 * 400, a body over the limit 413. The raw text stays available to handlers that hash it
 * (idempotency) under ctx.request.rawBody.
 */
export function jsonBody(limitBytes: number): Middleware {
  const parse = koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonStrict: true,
    jsonLimit: limitBytes,
    includeUnparsed: true,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH],
    onError(err) {
      const type = (err as Error & { type?: string }).type;
      if (type === 'entity.too.large') throw bodyTooLarge(limitBytes);
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
        throw new HeraldError('UNSUPPORTED_MEDIA_TYPE');
      }
      const raw = (err as Error & { body?: unknown }).body;
      if (err instanceof SyntaxError && typeof raw === 'string') throw explainParseFailure(raw);
      throw err;
    },
  });
  return async (ctx, next) => {
    if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') return next();
    if (!hasBody(ctx.req.headers)) {
      ctx.request.body = {};
      return next();
    }
    if (!isJsonContentType(ctx.req.headers['content-type'])) {
      throw new HeraldError('UNSUPPORTED_MEDIA_TYPE');
    }
    return parse(ctx, async () => {
      checkKeys(ctx.request.body);
      await next();
    });
  };
}
