import { toInt, toStr } from '../runtime/convert.js';
import { JSON_UNESCAPED_SLASHES, JSON_UNESCAPED_UNICODE, jsonString } from '../runtime/json.js';
import { jsonBodyLong, jsonBodyShort } from '../runtime/json-body.js';
import { PhpArray } from '../runtime/php-array.js';
import type { Value } from '../runtime/value.js';
import { type FilterDef, filter } from './types.js';

/** PHP's (string) cast for the escape filters: arrays read as "Array" (with a notice in PHP). */
function castString(v: Value): string {
  return v instanceof PhpArray ? 'Array' : toStr(v);
}

/**
 * From this length on, the SIMD scan (jsonBodyLong); on shorter strings its copies in and out
 * cost what it saves.
 */
const LONG = 96;

/** json_encode(JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES) without the surrounding quotes. */
export function jsonEscape(v: Value): string {
  const s = castString(v);
  const body = s.length >= LONG ? jsonBodyLong(s) : jsonBodyShort(s);
  // a lone surrogate: JSON.stringify's escapes
  return body ?? jsonString(s, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES).slice(1, -1);
}

const hex2 = (c: number): string => c.toString(16).toUpperCase().padStart(2, '0');
const hex4 = (c: number): string => c.toString(16).toUpperCase().padStart(4, '0');

/** A run of line breaks (LF, CRLF or a lone CR, as YAML reads them), for mode 1. */
const LINE_BREAKS = /(?:\r\n|\r|\n)+/g;

/**
 * Escapes text for a YAML scalar (docs/templates.md, "yaml_escape"). Mode 0: inside "double
 * quotes": backslash escapes, so the output is one line and parses back to exactly the input
 * whatever it holds; YAML 1.1 readers' line breaks (U+0085, U+2028, U+2029) and characters YAML
 * does not allow raw are escaped too. Mode 1: inside 'single quotes', which have no escapes: the
 * quote is doubled and a run of k line breaks is written as k + 1, which YAML's line folding
 * reads back as k (a CR comes back as LF; folding trims spaces next to a line break).
 */
export function yamlEscape(v: Value, mode: number): string {
  const s = castString(v);
  if (mode === 1) {
    return s
      .replace(/'/g, "''")
      .replace(LINE_BREAKS, (run) => '\n'.repeat(run.replace(/\r\n/g, '\n').length + 1));
  }
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && ch !== '\\' && ch !== '"') {
      out += ch;
      continue;
    }
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f && c !== 0x85)) out += `\\x${hex2(c)}`;
    else if (c === 0x85) out += '\\N';
    else if (c === 0x2028) out += '\\L';
    else if (c === 0x2029) out += '\\P';
    else if (c === 0xfeff || c === 0xfffe || c === 0xffff) out += `\\u${hex4(c)}`;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out += ch + s[++i];
    } else if (c >= 0xd800 && c <= 0xdfff) out += `\\u${hex4(c)}`;
    else out += ch;
  }
  return out;
}

export const PLATFORM_FILTERS: Readonly<Record<string, FilterDef>> = {
  json_escape: filter([], (_st, v) => jsonEscape(v)),
  yaml_escape: filter(['mode'], (_st, v, a) => yamlEscape(v, toInt(a[0] ?? 0))),
  kmd_escape: filter([], (_st, v) => v),
};
