import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { HeraldError } from '../../errors/index.js';

/** Keys that could reach an object's prototype if some code later merged the body naively. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/** Largest nesting accepted; deeper JSON is a denial-of-service attempt, not a message. */
const MAX_DEPTH = 64;

const formatBytes = (n: number): string =>
  n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;

/** Walks the parsed body without recursion (a deep body must not blow the stack). */
function checkKeys(body: unknown): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: body, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_DEPTH) {
      throw new HeraldError('INVALID_JSON', { detail: `nested deeper than ${MAX_DEPTH} levels` });
    }
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(key)) throw new HeraldError('FORBIDDEN_KEY', { key });
      stack.push({ value: item, depth: depth + 1 });
    }
  }
}

/**
 * co-body reports bad JSON, a scalar body and a `__proto__` key alike (a SyntaxError carrying the
 * raw text), so we look at the text again to tell the client which one it was.
 */
function explainParseFailure(raw: string): HeraldError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    return new HeraldError('INVALID_JSON', { detail: (err as SyntaxError).message });
  }
  if (parsed === null || typeof parsed !== 'object') {
    return new HeraldError('INVALID_JSON', { detail: 'the body must be a JSON object or array' });
  }
  checkKeys(parsed); // throws FORBIDDEN_KEY, the usual reason co-body refused valid JSON
  return new HeraldError('INVALID_JSON', { detail: 'the body must be a JSON object or array' });
}

/** Does the request carry a body at all (a POST with none is read as `{}`)? */
const hasBody = (headers: Readonly<Record<string, string | string[] | undefined>>): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** The usual JSON content types, told without parsing the header (ctx.is decides the rest). */
const isJson = (type: string | undefined): boolean =>
  type === 'application/json' || type === 'application/json; charset=utf-8';

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
      if (type === 'entity.too.large')
        throw new HeraldError('BODY_TOO_LARGE', { limit: formatBytes(limitBytes) });
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
    if (!isJson(ctx.req.headers['content-type']) && !ctx.is('application/json', '+json')) {
      throw new HeraldError('UNSUPPORTED_MEDIA_TYPE');
    }
    return parse(ctx, async () => {
      checkKeys(ctx.request.body);
      await next();
    });
  };
}
