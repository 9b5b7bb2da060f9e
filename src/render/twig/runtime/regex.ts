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
  for (const m of mods) {
    if (m === 'i') flags |= RE2JS.CASE_INSENSITIVE;
    else if (m === 'm') flags |= RE2JS.MULTILINE;
    else if (m === 's') flags |= RE2JS.DOTALL;
    else if (m === 'U') prefix += '(?U)';
    else if (m === 'u' || m === 'D' || m === '\n' || m === ' ') continue;
    else if (m === 'x') return fail('the x modifier is not supported by matches');
    else return fail(`preg_match(): Unknown modifier '${m}'`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(prefix + body, flags);
  } catch (e) {
    return fail(`invalid regular expression: ${(e as Error).message}`);
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(pattern, re);
  return re;
}
