import { toStr } from '../runtime/convert.js';
import { fail } from '../runtime/fault.js';
import { Markup } from '../runtime/markup.js';
import type { Value } from '../runtime/value.js';
import { rawUrlEncode } from './string-filters.js';
import { type FilterDef, filter } from './types.js';

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };

function hex(c: number, width: number): string {
  return c.toString(16).toUpperCase().padStart(width, '0');
}

const JS_SHORT: Readonly<Record<number, string>> = {
  8: '\\b',
  9: '\\t',
  10: '\\n',
  12: '\\f',
  13: '\\r',
  47: '\\/',
  92: '\\\\',
};

/** Twig's "js" strategy: everything but [a-zA-Z0-9,._] as \xHH or \uHHHH (surrogate pairs for astral). */
function escapeJs(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (/[a-zA-Z0-9,._]/.test(ch)) {
      out += ch;
      continue;
    }
    const c = s.charCodeAt(i);
    const short = JS_SHORT[c];
    // astral characters are already two UTF-16 units here, i.e. the surrogate pair Twig writes
    out += short ?? `\\u${hex(c, 4)}`;
  }
  return out;
}

function escapeCss(s: string): string {
  let out = '';
  for (const ch of s) {
    if (/[a-zA-Z0-9]/.test(ch)) out += ch;
    else out += `\\${ch.codePointAt(0)!.toString(16).toUpperCase()} `;
  }
  return out;
}

function escapeHtmlAttr(s: string): string {
  let out = '';
  for (const ch of s) {
    if (/[a-zA-Z0-9,.\-_]/.test(ch)) {
      out += ch;
      continue;
    }
    const c = ch.codePointAt(0)!;
    if ((c <= 0x1f && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c <= 0x9f)) {
      out += '&#xFFFD;';
      continue;
    }
    const named: Record<number, string> = { 34: '&quot;', 38: '&amp;', 60: '&lt;', 62: '&gt;' };
    if (named[c]) out += named[c];
    else out += c < 0x80 ? `&#x${hex(c, 2)};` : `&#x${hex(c, 4)};`;
  }
  return out;
}

/**
 * Twig's twig_escape_filter. `autoescape` is true for the escaping Twig adds itself (autoescape
 * blocks, pre_escape of nl2br/spaceless): that leaves Markup alone; an explicit |e escapes it.
 */
export function escapeValue(v: Value, strategy: string, autoescape = false): Value {
  if (v instanceof Markup) {
    if (autoescape) return v;
    return escapeValue(v.text, strategy);
  }
  if (typeof v !== 'string') {
    if (['html', 'js', 'css', 'html_attr', 'url'].includes(strategy)) return v;
    return fail(`Invalid escaping strategy "${strategy}" (valid ones: html, js, url, css, and html_attr).`);
  }
  switch (strategy) {
    case 'html':
      return v.replace(/[&<>"']/g, (c) => HTML[c]!);
    case 'js':
      return escapeJs(v);
    case 'url':
      return rawUrlEncode(v);
    case 'css':
      return escapeCss(v);
    case 'html_attr':
      return escapeHtmlAttr(v);
    default:
      return fail(`Invalid escaping strategy "${strategy}" (valid ones: html, js, url, css, and html_attr).`);
  }
}

const escapeFilter = filter(['strategy', 'charset', 'autoescape'], (_st, v, a) =>
  escapeValue(v, a[0] === undefined || a[0] === null ? 'html' : toStr(a[0])),
);

export const ESCAPE_FILTERS: Readonly<Record<string, FilterDef>> = {
  escape: escapeFilter,
  e: escapeFilter,
  raw: filter([], (_st, v) => v),
};
