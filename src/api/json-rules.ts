import { constants as zlibConstants } from 'node:zlib';
import { HeraldError, ValidationError } from '../errors/index.js';
import { firstInvalidUtf8 } from '../text/utf8.js';

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
      throw new HeraldError('INVALID_JSON', {
        detail: { 'zh-CN': `嵌套超过 ${MAX_DEPTH} 层`, 'en-US': `nested deeper than ${MAX_DEPTH} levels` },
      });
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

/** A field's path as validation errors name it: `img_list[0].id`; an odd key as `["a b"]`. */
function fieldName(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((acc, p) => {
    if (typeof p === 'number') return `${acc}[${p}]`;
    if (!/^[\w$-]+$/.test(p)) return `${acc}[${JSON.stringify(p)}]`;
    return acc ? `${acc}.${p}` : p;
  }, '');
}

/** A `\uD800`-`\uDFFF` escape: the only way valid UTF-8 JSON can give JSON.parse a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** String#isWellFormed (ES2024, in Node 20; the lib here is ES2023): false for a lone surrogate. */
const hasLoneSurrogate = (s: string): boolean => !(s as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * Refuses a body whose strings or keys hold a lone surrogate (`"\ud800"`), which a store would
 * keep as U+FFFD: 400 naming the field. Costs a scan for `\u` unless the text has such escapes.
 */
export function checkText(body: unknown, text: string): void {
  if (!text.includes('\\u') || !SURROGATE_ESCAPE.test(text) || !holdsLoneSurrogate(body)) return;
  // Found: walk again, keeping paths this time, to name the first such field in the text.
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) throw loneSurrogate(path);
    } else if (Array.isArray(value)) {
      // Pushed last to first, so that the first bad field in the text is the one named.
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (const [key] of entries) if (hasLoneSurrogate(key)) throw loneSurrogate([...path, key]);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
}

/** Whether any string or key in a parsed body holds a lone surrogate (no paths kept: cheap). */
function holdsLoneSurrogate(body: unknown): boolean {
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const key in value) {
        if (hasLoneSurrogate(key)) return true;
        stack.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

const loneSurrogate = (path: ReadonlyArray<string | number>): ValidationError =>
  new ValidationError(fieldName(path), {
    'zh-CN': '必须是有效的 Unicode 文本（含有孤立的代理项 \\ud800-\\udfff）',
    'en-US': 'must be valid Unicode text (it holds a lone surrogate, \\ud800-\\udfff)',
  });

/**
 * Why bytes that are not UTF-8 were refused: 400 naming the field whose string holds the first
 * bad byte, or invalid JSON when it lies outside any string. Only on the error path.
 */
export function explainInvalidUtf8(bytes: Buffer): HeraldError {
  const at = firstInvalidUtf8(bytes);
  const where = {
    'zh-CN': `必须是有效的 UTF-8 文本（第 ${at} 字节无效）`,
    'en-US': `must be valid UTF-8 text (byte ${at} is not)`,
  };
  const path = openStringPath(bytes.subarray(0, Math.max(at, 0)).toString('utf8'));
  if (path === undefined) {
    return new HeraldError('INVALID_JSON', {
      detail: { 'zh-CN': `第 ${at} 字节不是有效的 UTF-8`, 'en-US': `invalid UTF-8 at byte ${at}` },
    });
  }
  return new ValidationError(fieldName(path), where);
}

/**
 * The path of the string a JSON text ends inside (a key's own text counts as that key), or
 * undefined when it does not end inside a string. Lenient: the text is a prefix of a body.
 */
function openStringPath(text: string): Array<string | number> | undefined {
  const stack: Array<{ array: boolean; key: string; index: number; expectKey: boolean }> = [];
  const path = (): Array<string | number> => stack.map((f) => (f.array ? f.index : f.key));
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const top = stack.at(-1);
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const isKey = top !== undefined && !top.array && top.expectKey;
      if (j >= text.length) {
        if (!isKey) return path();
        top.key = `${text.slice(i + 1)}…`;
        return path();
      }
      if (isKey) {
        try {
          top.key = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          top.key = text.slice(i + 1, j);
        }
        top.expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === '{' || c === '[') stack.push({ array: c === '[', key: '', index: 0, expectKey: c === '{' });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',' && top !== undefined) {
      if (top.array) top.index++;
      else top.expectKey = true;
    }
    i++;
  }
  return undefined;
}

const NOT_A_BODY = {
  'zh-CN': '请求体必须是 JSON 对象或数组',
  'en-US': 'the body must be a JSON object or array',
} as const;

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
  if (parsed === null || typeof parsed !== 'object')
    return new HeraldError('INVALID_JSON', { detail: NOT_A_BODY });
  checkKeys(parsed); // throws FORBIDDEN_KEY
  return new HeraldError('INVALID_JSON', { detail: NOT_A_BODY });
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
export const BODY_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'] as const;
export type BodyEncoding = (typeof BODY_ENCODINGS)[number];

/** How much of a refused Content-Encoding the answer repeats. */
const MAX_ENCODING_SHOWN = 64;

/**
 * A Content-Encoding Herald does not take (zstd, `gzip, gzip`, ...): 415 naming it as sent and
 * the encodings it takes.
 */
export const unsupportedEncoding = (header: string | undefined): HeraldError => {
  const encoding = (header ?? '').trim();
  return new HeraldError('UNSUPPORTED_CONTENT_ENCODING', {
    encoding: encoding.length > MAX_ENCODING_SHOWN ? `${encoding.slice(0, MAX_ENCODING_SHOWN)}…` : encoding,
    supported: { 'zh-CN': BODY_ENCODINGS.join('、'), 'en-US': BODY_ENCODINGS.join(', ') },
  });
};

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
  new HeraldError('BODY_UNREADABLE', {
    detail: {
      'zh-CN': `内容无法解压（${err.message}）`,
      'en-US': `the content could not be decompressed (${err.message})`,
    },
  });
