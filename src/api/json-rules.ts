import { constants as zlibConstants } from 'node:zlib';
import { HeraldError } from '../errors/index.js';

/*
 * What a POST body must be (read-json-body.ts applies it for every endpoint): a JSON object or
 * array, with no key that could reach a prototype and no deeper nesting than MAX_DEPTH.
 */

/** Keys that could reach an object's prototype if some code later merged the body naively. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/** Largest nesting accepted; deeper JSON is a denial-of-service attempt, not a message. */
const MAX_DEPTH = 64;

/** A byte count as the 413 message shows it ("1 MiB", "128 KiB", "1000 bytes"). */
export const formatBytes = (n: number): string =>
  n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;

export const bodyTooLarge = (limitBytes: number): HeraldError =>
  new HeraldError('BODY_TOO_LARGE', { limit: formatBytes(limitBytes) });

/** Walks the parsed body without recursion (a deep body must not blow the stack). */
export function checkKeys(body: unknown): void {
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
 * Why a body text was refused: not JSON at all (the parser's message), a scalar, or valid JSON
 * holding a forbidden key (co-body refuses the last alike, so the text is looked at again).
 */
export function explainParseFailure(raw: string): HeraldError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    return new HeraldError('INVALID_JSON', { detail: (err as SyntaxError).message });
  }
  if (parsed === null || typeof parsed !== 'object') {
    return new HeraldError('INVALID_JSON', { detail: 'the body must be a JSON object or array' });
  }
  checkKeys(parsed); // throws FORBIDDEN_KEY
  return new HeraldError('INVALID_JSON', { detail: 'the body must be a JSON object or array' });
}

/** Does the request carry a body at all (a POST with none is read as `{}`)? */
export const hasBody = (headers: Readonly<Record<string, string | string[] | undefined>>): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** The usual JSON content types, told without parsing the header. */
const isPlainJsonType = (type: string | undefined): boolean =>
  type === 'application/json' || type === 'application/json; charset=utf-8';

/** `type/subtype+json`, with parameters after `;` ignored. */
const JSON_SUFFIX = /^[\w.!#$&^-]+\/[\w.!#$&^+-]+\+json$/;

/** Whether a Content-Type header names JSON: application/json or any `+json` type, any case, any parameters. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (isPlainJsonType(header)) return true;
  const semi = header.indexOf(';');
  const media = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  return media === 'application/json' || JSON_SUFFIX.test(media);
}

/** The content encodings a body may come in, by the name both readers give them. */
export type BodyEncoding = 'identity' | 'gzip' | 'deflate' | 'br';

/**
 * A request's Content-Encoding as one of BodyEncoding (any case, `x-gzip` as gzip), or undefined
 * for one Herald does not take (415).
 */
export function bodyEncodingOf(header: string | undefined): BodyEncoding | undefined {
  const encoding = (header ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case 'identity':
    case 'gzip':
    case 'deflate':
    case 'br':
      return encoding;
    case 'x-gzip':
      return 'gzip';
    default:
      return undefined;
  }
}

/**
 * The codes Node's decompressors give their errors: zlib's, named as its Z_ constants
 * (Z_DATA_ERROR, Z_BUF_ERROR...; the set holds every Z_ name, flush modes too, which no error
 * carries), and brotli's, which Node names `ERR_` + the decoder error's name without its
 * BROTLI_DECODER prefix (BROTLI_DECODER_ERROR_FORMAT_PADDING_2 -> ERR__ERROR_FORMAT_PADDING_2).
 * Taken from zlib's own table, so that a corrupt body is told from every other failure by its code.
 */
const DECOMPRESSION_ERROR_CODES: ReadonlySet<string> = new Set([
  ...Object.keys(zlibConstants).filter((name) => name.startsWith('Z_')),
  ...Object.keys(zlibConstants)
    .filter((name) => name.startsWith('BROTLI_DECODER_ERROR_'))
    .map((name) => `ERR_${name.slice('BROTLI_DECODER'.length)}`),
]);

/** Whether an error came from decompressing a body: the body is corrupt, not the server. */
export function isDecompressionError(err: unknown): err is Error & { code: string } {
  const code: unknown = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && DECOMPRESSION_ERROR_CODES.has(code);
}

/** A compressed body that does not decompress: 400, with what the decompressor said. */
export const undecompressable = (err: Error): HeraldError =>
  new HeraldError('BODY_UNREADABLE', { detail: `the content could not be decompressed (${err.message})` });
