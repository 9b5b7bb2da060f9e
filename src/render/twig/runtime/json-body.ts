import { Buffer } from 'node:buffer';
import { endianness } from 'node:os';

/**
 * The body of a JSON string as PHP's json_encode(JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES)
 * writes it: what json_escape prints. V8 11.3's JSON.stringify walks a string one character at a
 * time into a builder (about 2.5 ns a character, and some 70 ns a call); here only the places that
 * need an escape cost more than a native scan, and the result is the input's slices and escapes.
 */

/** Units flagged by the table: controls, quote, backslash, U+2028, U+2029 and surrogates. */
const SPECIAL = new Uint8Array(0x10000);
for (let c = 0; c < 0x20; c++) SPECIAL[c] = 1;
SPECIAL[0x22] = 1;
SPECIAL[0x5c] = 1;
SPECIAL[0x2028] = 1;
SPECIAL[0x2029] = 1;
SPECIAL.fill(1, 0xd800, 0xe000);

/** JSON.stringify's (and PHP's) escape of each ASCII unit the table flags. */
const ASCII_ESCAPES: string[] = [];
for (let c = 0; c < 0x20; c++) ASCII_ESCAPES[c] = JSON.stringify(String.fromCharCode(c)).slice(1, -1);
ASCII_ESCAPES[0x22] = '\\"';
ASCII_ESCAPES[0x5c] = '\\\\';

/** What needs an escape, or a look (a surrogate: a pair passes as it is). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON must escape
const SPECIAL_SCAN = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/g;

/** The escape of a unit the table or the regex flagged, other than a surrogate. */
function escapeOf(c: number): string {
  if (c < 0x80) return ASCII_ESCAPES[c]!;
  return c === 0x2028 ? '\\u2028' : '\\u2029';
}

/**
 * jsonBodyUnicode for short strings: the regex finds each unit to escape natively, so a name or a
 * URL with nothing to escape costs one scan. Undefined when `s` holds a lone surrogate.
 */
export function jsonBodyShort(s: string): string | undefined {
  const re = SPECIAL_SCAN;
  re.lastIndex = 0;
  let out = '';
  let last = 0;
  while (re.test(s)) {
    const i = re.lastIndex - 1;
    const c = s.charCodeAt(i);
    if (c >= 0xd800) {
      if (c > 0xdbff || (s.charCodeAt(i + 1) & 0xfc00) !== 0xdc00) return undefined;
      re.lastIndex = i + 2; // a surrogate pair: written as it is
      continue;
    }
    out += s.slice(last, i) + escapeOf(c);
    last = i + 1;
  }
  return last === 0 ? s : out + s.slice(last);
}

/** The longest string copied; longer ones (and big-endian hosts) take the caller's slow path. */
const MAX_UNITS = 1 << 16;
const LITTLE_ENDIAN = endianness() === 'LE';

let bytes: Buffer | undefined;
let units: Uint16Array | undefined;
/** The same memory two units at a time: half the loads where nothing needs an escape. */
let pairs: Int32Array | undefined;

/**
 * The escaped body of `s`, or undefined when `s` holds a lone surrogate (JSON.stringify's `\udxxx`
 * is then the caller's answer), is longer than MAX_UNITS or the host is big-endian.
 */
export function jsonBodyUnicode(s: string): string | undefined {
  const n = s.length;
  if (n > MAX_UNITS || !LITTLE_ENDIAN) return undefined;
  if (units === undefined || bytes === undefined || pairs === undefined || units.length < n) {
    const size = Math.min(MAX_UNITS, Math.max(4096, 2 ** Math.ceil(Math.log2(n))));
    bytes = Buffer.allocUnsafeSlow(size * 2);
    units = new Uint16Array(bytes.buffer, bytes.byteOffset, size);
    pairs = new Int32Array(bytes.buffer, bytes.byteOffset, size >> 1);
  }
  bytes.write(s, 0, 'utf16le');
  const u = units;
  const w = pairs;
  const t = SPECIAL;
  const blocksEnd = n & ~7;
  let out = '';
  let last = 0;
  let i = 0;
  while (i < n) {
    // at a block boundary, skip whole blocks of eight with nothing to escape
    if ((i & 7) === 0) {
      let k = i >> 1;
      const kEnd = blocksEnd >> 1;
      while (k < kEnd) {
        const a = w[k]!;
        const b = w[k + 1]!;
        const c = w[k + 2]!;
        const d = w[k + 3]!;
        const flags =
          t[a & 0xffff]! |
          t[a >>> 16]! |
          t[b & 0xffff]! |
          t[b >>> 16]! |
          t[c & 0xffff]! |
          t[c >>> 16]! |
          t[d & 0xffff]! |
          t[d >>> 16]!;
        if (flags !== 0) break;
        k += 4;
      }
      i = k << 1;
      if (i >= n) break;
    }
    const c = u[i]!;
    if (t[c] === 0) {
      i++;
      continue;
    }
    if (c >= 0xd800) {
      if (c > 0xdbff || i + 1 >= n || (u[i + 1]! & 0xfc00) !== 0xdc00) return undefined;
      i += 2; // a surrogate pair: written as it is
      continue;
    }
    out += s.slice(last, i) + escapeOf(c);
    last = ++i;
  }
  return last === 0 ? s : out + s.slice(last);
}
