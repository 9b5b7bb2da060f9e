/** Multibyte helpers: PHP's mb_* functions count code points (an emoji is one character). */

const SURROGATE = /[\uD800-\uDFFF]/;

export function mbLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

export function codePoints(s: string): string[] {
  return SURROGATE.test(s) ? Array.from(s) : s.split('');
}

/** mb_substr with PHP's handling of negative start and length. */
export function mbSubstr(s: string, start: number, length: number | null): string {
  const chars = SURROGATE.test(s) ? Array.from(s) : undefined;
  const n = chars ? chars.length : s.length;
  let from = start < 0 ? Math.max(n + start, 0) : Math.min(start, n);
  let to: number;
  if (length === null) to = n;
  else if (length < 0) to = Math.max(n + length, from);
  else to = Math.min(from + length, n);
  if (to < from) to = from;
  from = Math.trunc(from);
  to = Math.trunc(to);
  return chars ? chars.slice(from, to).join('') : s.slice(from, to);
}

/** UTF-8 encoding length, for PHP functions that count bytes (strlen, str_pad widths). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
