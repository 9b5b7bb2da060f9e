import { isIntegerString, isNumericString, parseNumeric } from './convert.js';
import { formatDate, TwigDate } from './date.js';
import { fail } from './fault.js';
import { Markup } from './markup.js';
import { numberToJson } from './number-format.js';
import { ArrayBuilder, PhpArray } from './php-array.js';
import type { RenderState } from './state.js';
import type { Value } from './value.js';

export const JSON_HEX_TAG = 1;
export const JSON_HEX_AMP = 2;
export const JSON_HEX_APOS = 4;
export const JSON_HEX_QUOT = 8;
export const JSON_FORCE_OBJECT = 16;
export const JSON_NUMERIC_CHECK = 32;
export const JSON_UNESCAPED_SLASHES = 64;
export const JSON_PRETTY_PRINT = 128;
export const JSON_UNESCAPED_UNICODE = 256;
export const JSON_PRESERVE_ZERO_FRACTION = 1024;

const MAX_DEPTH = 512;

const NEEDS_HEX = JSON_HEX_TAG | JSON_HEX_AMP | JSON_HEX_APOS | JSON_HEX_QUOT;
const LINE_SEPARATORS = /[\u2028\u2029]/g;
const SLASH_OR_NON_ASCII = /[/\u0080-\uffff]/g;
const SLASH = /\//g;

/**
 * PHP's json_encode string escaping. JSON.stringify already escapes exactly like PHP (quote,
 * backslash, \b \f \n \r \t, other controls as lowercase \u00xx); PHP additionally escapes "/"
 * and non-ASCII unless told not to, and always U+2028/U+2029.
 */
export function jsonString(s: string, flags: number): string {
  if (flags & NEEDS_HEX) return jsonStringSlow(s, flags);
  const json = JSON.stringify(s);
  if (flags & JSON_UNESCAPED_UNICODE) {
    const out = flags & JSON_UNESCAPED_SLASHES || !s.includes('/') ? json : json.replace(SLASH, '\\/');
    if (!s.includes('\u2028') && !s.includes('\u2029')) return out;
    return out.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
  }
  return json.replace(SLASH_OR_NON_ASCII, (c) =>
    c === '/'
      ? flags & JSON_UNESCAPED_SLASHES
        ? '/'
        : '\\/'
      : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function jsonStringSlow(s: string, flags: number): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    switch (c) {
      case 0x22:
        out += flags & JSON_HEX_QUOT ? '\\u0022' : '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x2f:
        out += flags & JSON_UNESCAPED_SLASHES ? '/' : '\\/';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x3c:
        out += flags & JSON_HEX_TAG ? '\\u003C' : '<';
        continue;
      case 0x3e:
        out += flags & JSON_HEX_TAG ? '\\u003E' : '>';
        continue;
      case 0x26:
        out += flags & JSON_HEX_AMP ? '\\u0026' : '&';
        continue;
      case 0x27:
        out += flags & JSON_HEX_APOS ? '\\u0027' : "'";
        continue;
    }
    if (c < 0x20) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (c < 0x80) out += s[i];
    else if (flags & JSON_UNESCAPED_UNICODE && !(c === 0x2028 || c === 0x2029)) out += s[i];
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/** PHP's json_encode for template values. */
/** An integral float's digits as PHP writes them with JSON_PRESERVE_ZERO_FRACTION. */
const withZeroFraction = (s: string): string => (s.includes('.') ? s : `${s}.0`);

/** A numeric string under JSON_NUMERIC_CHECK: the int or float it denotes, as PHP encodes that. */
function numericString(s: string, flags: number): string {
  const n = parseNumeric(s);
  if (typeof n === 'bigint') return String(n);
  // written as a float ("1.0", "1e3"), or an integer beyond int64, which PHP reads as a float
  const float = !isIntegerString(s) || !Number.isSafeInteger(n);
  if (!float) return String(n);
  const digits = numberToJson(n);
  return flags & JSON_PRESERVE_ZERO_FRACTION && Number.isFinite(n) ? withZeroFraction(digits) : digits;
}

/** DateTime's array cast: `date`, `timezone_type`, `timezone`. */
function dateFields(st: RenderState, d: TwigDate): PhpArray {
  const fields = new ArrayBuilder();
  fields.set('date', formatDate(st, d, 'Y-m-d H:i:s.u'));
  fields.set('timezone_type', d.zoneType());
  fields.set('timezone', d.zoneName());
  return fields.build();
}

export function jsonEncode(st: RenderState, v: Value, flags: number): string {
  const pretty = (flags & JSON_PRETTY_PRINT) !== 0;
  const enc = (x: Value, depth: number): string => {
    if (depth > MAX_DEPTH) return fail('json_encode: maximum depth exceeded');
    st.step();
    switch (typeof x) {
      case 'string':
        if (x.length > 4096) st.step(x.length >> 10);
        if (flags & JSON_NUMERIC_CHECK && isNumericString(x)) return numericString(x, flags);
        return jsonString(x, flags);
      case 'number':
        if (flags & JSON_PRESERVE_ZERO_FRACTION && Number.isInteger(x) && !Number.isSafeInteger(x)) {
          return withZeroFraction(numberToJson(x));
        }
        return numberToJson(x);
      case 'bigint':
        return String(x);
      case 'boolean':
        return x ? 'true' : 'false';
      default:
        break;
    }
    if (x === null) return 'null';
    if (x instanceof Markup) return jsonString(x.text, flags); // JsonSerializable
    // a DateTime encodes as its var_dump shows it
    if (x instanceof TwigDate) return enc(dateFields(st, x), depth);
    if (!(x instanceof PhpArray)) return '{}';
    const nl = pretty ? `\n${'    '.repeat(depth + 1)}` : '';
    const end = pretty ? `\n${'    '.repeat(depth)}` : '';
    const sep = pretty ? ': ' : ':';
    if (x.isList() && !(flags & JSON_FORCE_OBJECT)) {
      if (x.size === 0) return '[]';
      return `[${x
        .values()
        .map((e) => nl + enc(e, depth + 1))
        .join(',')}${end}]`;
    }
    if (x.size === 0) return '{}';
    const parts: string[] = [];
    x.forEach((e, k) => {
      parts.push(nl + jsonString(String(k), flags) + sep + enc(e, depth + 1));
    });
    return `{${parts.join(',')}${end}}`;
  };
  const out = enc(v, 0);
  st.checkString(out.length);
  return out;
}
