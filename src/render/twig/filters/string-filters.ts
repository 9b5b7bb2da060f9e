import { charge, warn } from '../runtime/budget.js';
import { castStr, numberParam, toInt, toStr } from '../runtime/convert.js';
import { fail } from '../runtime/fault.js';
import { codePoints, mbLength, mbSubstr } from '../runtime/mb.js';
import { PhpArray } from '../runtime/php-array.js';
import type { RenderState } from '../runtime/state.js';
import type { Value } from '../runtime/value.js';
import { convertEncoding } from './convert-encoding.js';
import { type Args, type FilterDef, filter } from './types.js';

/** Twig's string filters take `?string`-like input: null reads as "", arrays are type errors. */
export function stringArg(v: Value | undefined, filterName: string): string {
  if (v === undefined || v === null) return '';
  if (v instanceof PhpArray) return fail(`${filterName}(): Argument #1 must be of type string, array given`);
  return toStr(v);
}

const PHP_TRIM = ' \t\n\r\0\v';

/** Whether a code unit is in PHP_TRIM. */
function isTrimSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x00 || c === 0x0b;
}

/** Expands a PHP character mask ("a..z" ranges included). */
function maskSet(mask: string): Set<string> {
  const set = new Set<string>();
  const chars = codePoints(mask);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i + 1] === '.' && chars[i + 2] === '.' && chars[i + 3] !== undefined) {
      const a = chars[i]!.codePointAt(0)!;
      const b = chars[i + 3]!.codePointAt(0)!;
      charge(b - a);
      for (let c = a; c <= b; c++) set.add(String.fromCodePoint(c));
      i += 3;
    } else set.add(chars[i]!);
  }
  return set;
}

export function phpTrim(
  s: string,
  mask: string = PHP_TRIM,
  side: 'both' | 'left' | 'right' = 'both',
): string {
  if (mask === PHP_TRIM && side === 'both') {
    // fast path without a /[...]+$/ regex (quadratic on long runs of spaces), by code unit
    let a = 0;
    let b = s.length;
    while (a < b && isTrimSpace(s.charCodeAt(a))) a++;
    while (b > a && isTrimSpace(s.charCodeAt(b - 1))) b--;
    return a === 0 && b === s.length ? s : s.slice(a, b);
  }
  const set = maskSet(mask);
  const chars = codePoints(s);
  let a = 0;
  let b = chars.length;
  if (side !== 'right') while (a < b && set.has(chars[a]!)) a++;
  if (side !== 'left') while (b > a && set.has(chars[b - 1]!)) b--;
  return a === 0 && b === chars.length ? s : chars.slice(a, b).join('');
}

const CASED = /\p{Cased}/u;
const CASE_IGNORABLE =
  /[\p{Mn}\p{Me}\p{Cf}\p{Lm}\p{Sk}'.:\u00B7\u0387\u05F4\u2018\u2019\u2024\u2027\uFE13\uFE52\uFE55\uFF07\uFF0E\uFF1A\u00AD]/u;
/**
 * mb_strtolower as PHP 8.2 has it: a capital sigma is always σ, where JS (and PHP from 8.3) writes
 * ς at a word's end.
 */
function phpLower(s: string): string {
  return s.includes('Σ') ? s.replaceAll('Σ', 'σ').toLowerCase() : s.toLowerCase();
}

/**
 * Characters whose title case differs from their upper case: digraphs (ǅ), ligatures (ﬁ is Fi),
 * ß (Ss), Armenian ligatures and Greek letters with ypogegrammeni; generated from PHP 8.2's
 * mb_convert_case. Georgian letters have no title case (isGeorgian).
 */
const TITLE: Readonly<Record<string, string>> = {
  ß: 'Ss',
  Ǆ: 'ǅ',
  ǅ: 'ǅ',
  ǆ: 'ǅ',
  Ǉ: 'ǈ',
  ǈ: 'ǈ',
  ǉ: 'ǈ',
  Ǌ: 'ǋ',
  ǋ: 'ǋ',
  ǌ: 'ǋ',
  Ǳ: 'ǲ',
  ǲ: 'ǲ',
  ǳ: 'ǲ',
  և: 'Եւ',
  ᾀ: 'ᾈ',
  ᾁ: 'ᾉ',
  ᾂ: 'ᾊ',
  ᾃ: 'ᾋ',
  ᾄ: 'ᾌ',
  ᾅ: 'ᾍ',
  ᾆ: 'ᾎ',
  ᾇ: 'ᾏ',
  ᾈ: 'ᾈ',
  ᾉ: 'ᾉ',
  ᾊ: 'ᾊ',
  ᾋ: 'ᾋ',
  ᾌ: 'ᾌ',
  ᾍ: 'ᾍ',
  ᾎ: 'ᾎ',
  ᾏ: 'ᾏ',
  ᾐ: 'ᾘ',
  ᾑ: 'ᾙ',
  ᾒ: 'ᾚ',
  ᾓ: 'ᾛ',
  ᾔ: 'ᾜ',
  ᾕ: 'ᾝ',
  ᾖ: 'ᾞ',
  ᾗ: 'ᾟ',
  ᾘ: 'ᾘ',
  ᾙ: 'ᾙ',
  ᾚ: 'ᾚ',
  ᾛ: 'ᾛ',
  ᾜ: 'ᾜ',
  ᾝ: 'ᾝ',
  ᾞ: 'ᾞ',
  ᾟ: 'ᾟ',
  ᾠ: 'ᾨ',
  ᾡ: 'ᾩ',
  ᾢ: 'ᾪ',
  ᾣ: 'ᾫ',
  ᾤ: 'ᾬ',
  ᾥ: 'ᾭ',
  ᾦ: 'ᾮ',
  ᾧ: 'ᾯ',
  ᾨ: 'ᾨ',
  ᾩ: 'ᾩ',
  ᾪ: 'ᾪ',
  ᾫ: 'ᾫ',
  ᾬ: 'ᾬ',
  ᾭ: 'ᾭ',
  ᾮ: 'ᾮ',
  ᾯ: 'ᾯ',
  ᾲ: 'Ὰͅ',
  ᾳ: 'ᾼ',
  ᾴ: 'Άͅ',
  ᾷ: 'ᾼ͂',
  ᾼ: 'ᾼ',
  ῂ: 'Ὴͅ',
  ῃ: 'ῌ',
  ῄ: 'Ήͅ',
  ῇ: 'ῌ͂',
  ῌ: 'ῌ',
  ῲ: 'Ὼͅ',
  ῳ: 'ῼ',
  ῴ: 'Ώͅ',
  ῷ: 'ῼ͂',
  ῼ: 'ῼ',
  ﬀ: 'Ff',
  ﬁ: 'Fi',
  ﬂ: 'Fl',
  ﬃ: 'Ffi',
  ﬄ: 'Ffl',
  ﬅ: 'St',
  ﬆ: 'St',
  ﬓ: 'Մն',
  ﬔ: 'Մե',
  ﬕ: 'Մի',
  ﬖ: 'Վն',
  ﬗ: 'Մխ',
};

/** Georgian Mkhedruli: Unicode gives it capitals (Mtavruli) but no title case. */
const isGeorgian = (c: number): boolean => (c >= 0x10d0 && c <= 0x10fa) || (c >= 0x10fd && c <= 0x10ff);

/** mb_convert_case(MB_CASE_TITLE): a cased letter after a non-cased, non-ignorable character starts a word. */
function titleCase(s: string): string {
  // PHP 8.2's mb_convert_case(MB_CASE_TITLE): a character is title-cased unless the last one
  // that was not case-ignorable was cased (a letter, or a cased number such as Ⅻ).
  let out = '';
  let inWord = false;
  for (const ch of s) {
    out += inWord ? ch.toLowerCase() : (TITLE[ch] ?? (isGeorgian(ch.charCodeAt(0)) ? ch : ch.toUpperCase()));
    if (!CASE_IGNORABLE.test(ch)) inWord = CASED.test(ch);
  }
  return out;
}

function nl2br(s: string): string {
  return s.replace(/\r\n|\n\r|\n|\r/g, (m) => `<br />${m}`);
}

/** PHP's strip_tags (without allowed tags, or keeping the named ones). */
export function stripTags(s: string, allowed: string): string {
  const allow = new Set((allowed.toLowerCase().match(/<([a-z0-9]+)>/g) ?? []).map((t) => t.slice(1, -1)));
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c !== '<') {
      out += c;
      i++;
      continue;
    }
    // a '<' followed by whitespace is kept as text
    const next = s[i + 1];
    if (next === undefined || /[ \t\n\r\v\f]/.test(next)) {
      out += c;
      i++;
      continue;
    }
    if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 4);
      i = end < 0 ? s.length : end + 3;
      continue;
    }
    // scan to the matching '>' honouring quotes
    let j = i + 1;
    let quote = '';
    let depth = 1;
    while (j < s.length) {
      const d = s[j]!;
      if (quote) {
        if (d === quote) quote = '';
      } else if (d === '"' || d === "'") quote = d;
      else if (d === '<') depth++;
      else if (d === '>') {
        depth--;
        if (depth === 0) break;
      }
      j++;
    }
    const tag = s.slice(i, j + 1);
    const name = /^<\/?([a-zA-Z0-9]+)/.exec(tag)?.[1]?.toLowerCase();
    if (name && allow.has(name)) out += tag;
    i = j + 1;
  }
  return out;
}

interface StrtrTable {
  readonly map: ReadonlyMap<string, string>;
  /** Distinct key lengths, longest first. */
  readonly lengths: readonly number[];
  /**
   * Finds the next position whose UTF-16 unit starts some key (a position that does not cannot
   * match): one native scan skips the text between candidates. Stateful (lastIndex), which is
   * safe because a replace runs to its end without calling back into the template.
   */
  readonly starts: RegExp;
  /** What preparing the table charged (charged again when it is reused). */
  readonly cost: number;
  /** Whether the pairs had an empty key, which PHP ignores with a warning on every call. */
  readonly emptyKey: boolean;
}

/**
 * Tables of replace pairs, kept per array: a constant pairs literal is one array for the whole
 * template, so a replace in a loop or a macro prepares it once. Arrays are immutable, so a
 * table cannot go stale.
 */
const strtrTables = new WeakMap<PhpArray, StrtrTable>();

function strtrTable(pairs: PhpArray): StrtrTable {
  const cached = strtrTables.get(pairs);
  if (cached) {
    charge(cached.cost);
    return cached;
  }
  const map = new Map<string, string>();
  // only string values are cached: converting another value may depend on the render
  let cacheable = true;
  let emptyKey = false;
  pairs.forEach((v, k) => {
    const key = String(k);
    if (typeof v !== 'string') cacheable = false;
    if (key !== '') map.set(key, castStr(v));
    else emptyKey = true;
  });
  const keys = [...map.keys()].sort((a, b) => b.length - a.length);
  const table: StrtrTable = {
    map,
    lengths: [...new Set(keys.map((k) => k.length))],
    starts: new RegExp(
      `[${[...new Set(keys.map((k) => k.charCodeAt(0)))].map((c) => `\\u${c.toString(16).padStart(4, '0')}`).join('')}]`,
      'g',
    ),
    cost: pairs.size >> 3,
    emptyKey,
  };
  if (cacheable) strtrTables.set(pairs, table);
  return table;
}

/** PHP's strtr with an array: longest keys first, each position replaced at most once. */
export function strtrArray(st: RenderState, s: string, pairs: PhpArray): string {
  const { map, lengths, starts, emptyKey } = strtrTable(pairs);
  if (emptyKey && s !== '') warn('strtr(): Ignoring replacement of empty string');
  if (map.size === 0) return s;
  // each position looked at costs one step per key length, as when every position was tried:
  // positions = length - characters consumed beyond the first by matches
  let skipped = 0;
  let out = '';
  let runStart = 0;
  starts.lastIndex = 0;
  while (starts.test(s)) {
    const at = starts.lastIndex - 1;
    for (const len of lengths) {
      if (at + len > s.length) continue;
      const rep = map.get(len === 1 ? s[at]! : s.substr(at, len));
      if (rep !== undefined) {
        out += s.slice(runStart, at) + rep;
        if (out.length > 65536) st.checkString(out.length);
        runStart = at + len;
        skipped += len - 1;
        starts.lastIndex = runStart;
        break;
      }
    }
  }
  charge((s.length - skipped) * lengths.length);
  if (runStart === 0) return s;
  out += s.slice(runStart);
  st.checkString(out.length);
  return out;
}

function explode(st: RenderState, delim: string, s: string, limit: number | null): Value[] {
  const parts = s.split(delim);
  st.checkArray(parts.length);
  if (limit === null) return parts;
  if (limit > 0) {
    if (parts.length <= limit) return parts;
    return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(delim)];
  }
  if (limit < 0) return parts.slice(0, limit);
  return [parts.join(delim)];
}

function split(st: RenderState, v: Value, a: Args): Value {
  const s = stringArg(v, 'split');
  const delim = stringArg(a[0], 'split');
  const limitV = a[1] === undefined ? null : a[1];
  // explode()'s int parameter; without a delimiter Twig only compares and counts with it
  const limit =
    limitV === null ? null : delim.length > 0 ? numberParam(limitV, 'explode', 3, 'limit') : toInt(limitV);
  if (delim.length > 0) return PhpArray.list(explode(st, delim, s, limit));
  const chars = codePoints(s);
  st.checkArray(chars.length);
  if (limit === null || limit <= 1) return PhpArray.list(s === '' ? [''] : chars);
  if (chars.length < limit) return PhpArray.list([s]);
  const out: Value[] = [];
  for (let i = 0; i < chars.length; i += limit) out.push(chars.slice(i, i + limit).join(''));
  return PhpArray.list(out);
}

export const STRING_FILTERS: Readonly<Record<string, FilterDef>> = {
  upper: filter([], (_st, v) => stringArg(v, 'upper').toUpperCase()),
  lower: filter([], (_st, v) => phpLower(stringArg(v, 'lower'))),
  capitalize: filter([], (_st, v) => {
    const s = stringArg(v, 'capitalize');
    return mbSubstr(s, 0, 1).toUpperCase() + phpLower(mbSubstr(s, 1, null));
  }),
  title: filter([], (_st, v) => titleCase(stringArg(v, 'title'))),
  trim: filter(['character_mask', 'side'], (_st, v, a) => {
    const s = stringArg(v, 'trim');
    const mask = a[0] === undefined || a[0] === null ? PHP_TRIM : toStr(a[0]);
    const side = a[1] === undefined ? 'both' : toStr(a[1]);
    if (side !== 'both' && side !== 'left' && side !== 'right') {
      return fail('Trimming side must be "left", "right" or "both".');
    }
    return phpTrim(s, mask, side);
  }),
  nl2br: filter([], (_st, v) => nl2br(stringArg(v, 'nl2br'))),
  striptags: filter(['allowable_tags'], (_st, v, a) =>
    stripTags(stringArg(v, 'striptags'), a[0] === undefined || a[0] === null ? '' : toStr(a[0])),
  ),
  spaceless: filter([], (_st, v) => phpTrim(stringArg(v, 'spaceless').replace(/>[ \t\n\r\v\f]+</g, '><'))),
  replace: filter(
    ['from'],
    (st, v, a) => {
      const from = a[0];
      if (!(from instanceof PhpArray)) {
        return fail(
          `The "replace" filter expects an array or "Traversable" as replace values, got "${from === null || from === undefined ? 'null' : typeof from}".`,
        );
      }
      return strtrArray(st, stringArg(v, 'replace'), from);
    },
    { required: 1 },
  ),
  split: filter(['delimiter', 'limit'], split, { required: 1 }),
  url_encode: filter([], (_st, v) => {
    if (v instanceof PhpArray) return httpBuildQuery(v, '');
    return rawUrlEncode(stringArg(v, 'url_encode'));
  }),
  convert_encoding: filter(
    ['to', 'from'],
    (_st, v, a) => convertEncoding(stringArg(v, 'convert_encoding'), toStr(a[0] ?? ''), toStr(a[1] ?? '')),
    { required: 2 },
  ),
};

/** PHP's rawurlencode over UTF-8 bytes. */
export function rawUrlEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function httpBuildQuery(arr: PhpArray, prefix: string): string {
  const parts: string[] = [];
  arr.forEach((v, k) => {
    const key = prefix ? `${prefix}[${k}]` : String(k);
    if (v === null) return;
    if (v instanceof PhpArray) {
      const inner = httpBuildQuery(v, key);
      if (inner) parts.push(inner);
      return;
    }
    const val = v === true ? '1' : v === false ? '0' : toStr(v);
    parts.push(`${rawUrlEncode(key)}=${rawUrlEncode(val)}`);
  });
  return parts.join('&');
}

export { mbLength };
