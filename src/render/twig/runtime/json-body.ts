import { Buffer } from 'node:buffer';
import { endianness } from 'node:os';

/**
 * The body of a JSON string as PHP's json_encode(JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES)
 * writes it, for long strings: what json_escape prints. V8 11.3's JSON.stringify walks a string
 * one character at a time into a builder (about 2.5 ns a character); here the string is copied
 * into a buffer natively and read eight code units at a time through a table, so only the few
 * places that need an escape cost more than the copy and the table reads.
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

/** The longest string copied; longer ones (and big-endian hosts) take the caller's slow path. */
const MAX_UNITS = 1 << 16;
const LITTLE_ENDIAN = endianness() === 'LE';

let bytes: Buffer | undefined;
let units: Uint16Array | undefined;

/**
 * The escaped body of `s`, or undefined when `s` holds a lone surrogate (JSON.stringify's `\udxxx`
 * is then the caller's answer), is longer than MAX_UNITS or the host is big-endian.
 */
export function jsonBodyUnicode(s: string): string | undefined {
  const n = s.length;
  if (n > MAX_UNITS || !LITTLE_ENDIAN) return undefined;
  if (units === undefined || bytes === undefined || units.length < n) {
    const size = Math.min(MAX_UNITS, Math.max(4096, 2 ** Math.ceil(Math.log2(n))));
    bytes = Buffer.allocUnsafeSlow(size * 2);
    units = new Uint16Array(bytes.buffer, bytes.byteOffset, size);
  }
  bytes.write(s, 0, 'utf16le');
  const u = units;
  const t = SPECIAL;
  const blocksEnd = n & ~7;
  let out = '';
  let last = 0;
  let i = 0;
  while (i < n) {
    // at a block boundary, skip whole blocks of eight with nothing to escape
    if ((i & 7) === 0) {
      while (
        i < blocksEnd &&
        (t[u[i]!]! |
          t[u[i + 1]!]! |
          t[u[i + 2]!]! |
          t[u[i + 3]!]! |
          t[u[i + 4]!]! |
          t[u[i + 5]!]! |
          t[u[i + 6]!]! |
          t[u[i + 7]!]!) ===
          0
      ) {
        i += 8;
      }
      if (i >= n) break;
    }
    const c = u[i]!;
    if (t[c] === 0) {
      i++;
      continue;
    }
    let esc: string;
    if (c < 0x80) esc = ASCII_ESCAPES[c]!;
    else if (c === 0x2028) esc = '\\u2028';
    else if (c === 0x2029) esc = '\\u2029';
    else if (c <= 0xdbff && i + 1 < n && (u[i + 1]! & 0xfc00) === 0xdc00) {
      i += 2; // a surrogate pair: written as it is
      continue;
    } else return undefined;
    out += s.slice(last, i) + esc;
    last = ++i;
  }
  return last === 0 ? s : out + s.slice(last);
}
