import { jsonBodyWasm } from './json-body-wasm.js';

/**
 * The body of a JSON string as PHP's json_encode(JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES)
 * writes it: what json_escape prints. V8 11.3's JSON.stringify walks a string one character at a
 * time into a builder (about 2.5 ns a character, and some 70 ns a call); here only the places that
 * need an escape cost more than a native scan.
 */

/** JSON.stringify's (and PHP's) escape of each ASCII unit that needs one. */
const ASCII_ESCAPES: string[] = [];
for (let c = 0; c < 0x20; c++) ASCII_ESCAPES[c] = JSON.stringify(String.fromCharCode(c)).slice(1, -1);
ASCII_ESCAPES[0x22] = '\\"';
ASCII_ESCAPES[0x5c] = '\\\\';

/**
 * A run of units that need no escape and no look (a surrogate is looked at: a pair passes as it
 * is), matched from `lastIndex`: V8 runs an anchored class loop several times faster than its
 * unanchored search for the first unit in the class.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON must escape
const PLAIN_RUN = /[^"\\\u0000-\u001f\u2028\u2029\ud800-\udfff]*/y;

/** The escape of a unit the regex stopped at, other than a surrogate. */
function escapeOf(c: number): string {
  if (c < 0x80) return ASCII_ESCAPES[c]!;
  return c === 0x2028 ? '\\u2028' : '\\u2029';
}

/** The end of the plain run from `i`. */
function plainRunEnd(s: string, i: number): number {
  PLAIN_RUN.lastIndex = i;
  PLAIN_RUN.test(s);
  return PLAIN_RUN.lastIndex;
}

/**
 * The escaped body of a short string: the regex skips each run with nothing to escape natively,
 * so a name or a URL with nothing to escape costs one scan. Undefined when `s` holds a lone
 * surrogate.
 */
export function jsonBodyShort(s: string): string | undefined {
  const n = s.length;
  let i = plainRunEnd(s, 0);
  if (i === n) return s;
  let out = '';
  let last = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800) {
      if (c > 0xdbff || (s.charCodeAt(i + 1) & 0xfc00) !== 0xdc00) return undefined;
      i += 2; // a surrogate pair: written as it is
    } else {
      out += s.slice(last, i) + escapeOf(c);
      last = ++i;
    }
    i = plainRunEnd(s, i);
  }
  return out + s.slice(last);
}

/**
 * The escaped body of a long string, by the SIMD scan (json-body-wasm.ts) where it can run, else
 * by the regex. Undefined when `s` holds a lone surrogate.
 */
export function jsonBodyLong(s: string): string | undefined {
  const body = jsonBodyWasm(s);
  return body === null ? jsonBodyShort(s) : body;
}
