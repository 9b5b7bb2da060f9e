import { RE2JS } from 're2js';
import { fail } from './fault.js';

const cache = new Map<string, RE2JS>();
const CACHE_MAX = 256;

/**
 * Compiles a PHP (PCRE) pattern with delimiters and flags, e.g. "/^a+$/i", on RE2: linear time
 * whatever the template author writes. Constructs RE2 lacks (backreferences, lookaround) fail.
 */
export function compilePcre(pattern: string): RE2JS {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const trimmed = pattern.replace(/^[ \t\n\r\v\f]+/, '');
  const open = trimmed[0];
  if (open === undefined || /[a-zA-Z0-9\\]/.test(open)) {
    return fail('preg_match(): Delimiter must not be alphanumeric, backslash, or NUL');
  }
  const close = ({ '(': ')', '[': ']', '{': '}', '<': '>' } as Record<string, string>)[open] ?? open;
  const end = trimmed.lastIndexOf(close);
  if (end <= 0) return fail(`preg_match(): No ending delimiter '${close}' found`);
  const body = trimmed.slice(1, end);
  const mods = trimmed.slice(end + 1);
  let flags = 0;
  let prefix = '';
  let extended = false;
  let unicode = false;
  for (const m of mods) {
    if (m === 'i') flags |= RE2JS.CASE_INSENSITIVE;
    else if (m === 'm') flags |= RE2JS.MULTILINE;
    else if (m === 's') flags |= RE2JS.DOTALL;
    else if (m === 'U') prefix += '(?U)';
    else if (m === 'u') unicode = true;
    else if (m === 'x') extended = true;
    else if (m === 'D' || m === '\n' || m === ' ') continue;
    else return fail(`preg_match(): Unknown modifier '${m}'`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(prefix + translate(body, extended, unicode), flags);
  } catch (e) {
    return fail(`invalid regular expression: ${(e as Error).message}`);
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(pattern, re);
  return re;
}

/** PCRE's classes under the u modifier, which PHP compiles with UCP: Unicode letters and digits. */
const UCP_OUTSIDE: Readonly<Record<string, string>> = {
  w: '[\\p{L}\\p{N}_]',
  W: '[^\\p{L}\\p{N}_]',
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  s: '[\\t\\n\\x0B\\f\\r\\p{Z}\\x{85}]',
  S: '[^\\t\\n\\x0B\\f\\r\\p{Z}\\x{85}]',
};
const UCP_INSIDE: Readonly<Record<string, string>> = {
  w: '\\p{L}\\p{N}_',
  d: '\\p{Nd}',
  s: '\\t\\n\\x0B\\f\\r\\p{Z}\\x{85}',
};
const UCP_POSIX: Readonly<Record<string, string>> = {
  alpha: '\\p{L}',
  alnum: '\\p{L}\\p{N}',
  digit: '\\p{Nd}',
  lower: '\\p{Ll}',
  upper: '\\p{Lu}',
  word: '\\p{L}\\p{N}_',
  space: '\\t\\n\\x0B\\f\\r\\p{Z}\\x{85}',
};

/**
 * The pattern as RE2 reads PHP's: with x, unescaped whitespace and #-comments outside a class
 * dropped; with u, \\w, \\d, \\s and the POSIX classes made Unicode-aware as PCRE's UCP makes them
 * (\\b stays ASCII: RE2 has no other).
 */
function translate(body: string, extended: boolean, unicode: boolean): string {
  if (!extended && !unicode) return body;
  let out = '';
  let inClass = false;
  // where the open class's members begin in `out`: a ] there is a member, not the end
  let classStart = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && i + 1 < body.length) {
      const e = body[i + 1]!;
      const ucp = unicode ? (inClass ? UCP_INSIDE[e] : UCP_OUTSIDE[e]) : undefined;
      // an escaped space under x is a space (RE2, which gets no x, has no such escape)
      out += ucp ?? (extended && /[ \t\n\r\v\f]/.test(e) ? e : c + e);
      i++;
      continue;
    }
    if (inClass) {
      if (c === '[' && body[i + 1] === ':') {
        const close = body.indexOf(':]', i + 2);
        const name = close < 0 ? '' : body.slice(i + 2, close);
        const ucp = unicode ? UCP_POSIX[name] : undefined;
        if (ucp !== undefined) {
          out += ucp;
          i = close + 1;
          continue;
        }
      }
      if (c === ']' && out.length > classStart) inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (body[i + 1] === '^') {
        out += '^';
        i++;
      }
      classStart = out.length;
      continue;
    }
    if (extended && /[ \t\n\r\v\f]/.test(c)) continue;
    if (extended && c === '#') {
      while (i + 1 < body.length && body[i + 1] !== '\n') i++;
      continue;
    }
    out += c;
  }
  return out;
}
