import { toInt, toStr } from '../runtime/convert.js';
import { JSON_UNESCAPED_SLASHES, JSON_UNESCAPED_UNICODE, jsonString } from '../runtime/json.js';
import { PhpArray } from '../runtime/php-array.js';
import type { Value } from '../runtime/value.js';
import { type FilterDef, filter } from './types.js';

/** PHP's (string) cast for the escape filters: arrays read as "Array" (with a notice in PHP). */
function castString(v: Value): string {
  return v instanceof PhpArray ? 'Array' : toStr(v);
}

/** json_encode(JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES) without the surrounding quotes. */
export function jsonEscape(v: Value): string {
  return jsonString(castString(v), JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES).slice(1, -1);
}

const hex2 = (c: number): string => c.toString(16).toUpperCase().padStart(2, '0');

/**
 * Escapes text for a YAML scalar. Mode 0: inside "double quotes" (backslash escapes, control
 * characters as \xHH). Mode 1: inside 'single quotes' (quote doubled; each LF written
 * as a blank line, because YAML folds a single line break inside a flow scalar into a space).
 */
export function yamlEscape(v: Value, mode: number): string {
  const s = castString(v);
  if (mode === 1) {
    // exactly the platform's str_replace: CR and other characters stay as they are
    return s.replace(/'/g, "''").replace(/\n/g, '\n\n');
  }
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const c = s.charCodeAt(i);
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${hex2(c)}`;
    else out += ch;
  }
  return out;
}

export const PLATFORM_FILTERS: Readonly<Record<string, FilterDef>> = {
  json_escape: filter([], (_st, v) => jsonEscape(v)),
  yaml_escape: filter(['mode'], (_st, v, a) => yamlEscape(v, toInt(a[0] ?? 0))),
  kmd_escape: filter([], (_st, v) => v),
};
