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

/** Whether a surrogate pair starts at `i`. */
function pairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
}

export function codePoints(s: string): string[] {
  return SURROGATE.test(s) ? Array.from(s) : s.split('');
}

/** mb_substr with PHP's handling of negative start and length. */
export function mbSubstr(s: string, start: number, length: number | null): string {
  if (start >= 0 && length !== null && length >= 0) {
    // counted from the start (`id[:8]`): walk the code points up to the end of the piece, as
    // Array.from splits them (a pair is one, a lone surrogate one), without reading the rest
    const n = s.length;
    let i = 0;
    for (let k = 0; k < start && i < n; k++) i += pairAt(s, i) ? 2 : 1;
    const from = i;
    for (let k = 0; k < length && i < n; k++) i += pairAt(s, i) ? 2 : 1;
    return s.slice(from, i);
  }
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
