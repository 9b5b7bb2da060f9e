const SIMPLE: Record<string, string> = { n: '\n', t: '\t', r: '\r', v: '\v', f: '\f', a: '\x07', b: '\b' };

/** PHP's stripcslashes, which Twig applies to every string literal (single- or double-quoted). */
export function stripcslashes(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\' || i + 1 >= s.length) {
      out += c;
      continue;
    }
    const n = s[++i]!;
    if (Object.hasOwn(SIMPLE, n)) {
      out += SIMPLE[n];
    } else if (n === 'x' && /[0-9a-fA-F]/.test(s[i + 1] ?? '')) {
      let hex = s[++i]!;
      if (/[0-9a-fA-F]/.test(s[i + 1] ?? '')) hex += s[++i];
      out += String.fromCharCode(Number.parseInt(hex, 16));
    } else if (n >= '0' && n <= '7') {
      let oct = n;
      while (oct.length < 3 && s[i + 1]! >= '0' && s[i + 1]! <= '7') oct += s[++i];
      out += String.fromCharCode(Number.parseInt(oct, 8) & 0xff);
    } else {
      out += n;
    }
  }
  return out;
}
