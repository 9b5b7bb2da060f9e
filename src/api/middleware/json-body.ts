import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { HeraldError } from '../../errors/index.js';
import {
  bodyEncodingOf,
  bodyTooLarge,
  checkKeys,
  explainParseFailure,
  hasBody,
  isDecompressionError,
  isJsonContentType,
  undecompressable,
} from '../json-rules.js';

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
    // What isJsonContentType takes: application/json and every +json type (type-is reads a
    // leading `+` as any type with that suffix).
    jsonTypes: ['application/json', '+json'],
    onError(err) {
      const e = err as Error & { type?: string; status?: number; body?: unknown; code?: string };
      if (e.type === 'entity.too.large') throw bodyTooLarge(limitBytes);
      if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported' || e.status === 415) {
        throw new HeraldError('UNSUPPORTED_MEDIA_TYPE');
      }
      if (err instanceof SyntaxError && typeof e.body === 'string') throw explainParseFailure(e.body);
      // The decompressor's own errors (zlib's or brotli's): a corrupt compressed body.
      if (isDecompressionError(err)) throw undecompressable(err);
      // raw-body's refusals (aborted, length mismatch) carry a 4xx status and a plain message.
      if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
        throw new HeraldError('BODY_UNREADABLE', { detail: e.message });
      }
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
    const encoding = bodyEncodingOf(ctx.req.headers['content-encoding']);
    if (encoding === undefined) throw new HeraldError('UNSUPPORTED_MEDIA_TYPE');
    // koa-body's decompressor knows the lower-case names only; send-pipemsg takes any case.
    ctx.req.headers['content-encoding'] = encoding;
    return parse(ctx, async () => {
      checkKeys(ctx.request.body);
      await next();
    });
  };
}
