import { castStr, toFloat, toInt, toInt64 } from './convert.js';
import { fail } from './fault.js';
import { utf8Length } from './mb.js';
import { exactFixed } from './number-format.js';
import type { RenderState } from './state.js';
import type { Value } from './value.js';

const SPEC = /%(?:(\d+)\$)?([-+ 0]|'.)*(\d+)?(?:\.(\d+))?([bcdeEfFgGosuxX%])/g;

/** printf's %f of a finite `n`: the exact decimal rounded to `prec` places (number-format.ts). */
const fixed = (n: number, prec: number): string => `${n < 0 ? '-' : ''}${exactFixed(Math.abs(n), prec)}`;

/**
 * printf's %g as PHP writes it (zend_gcvt): `digits` significant digits, rounded half to even on
 * the double's exact value, trailing zeros dropped; an exponent ("1.23e+6") when the point would
 * fall more than `digits` places right or four places left. `n` is finite.
 */
function general(n: number, digits: number, expChar: string): string {
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  // toExponential with many digits is the exact expansion; round that by hand
  const exact = Math.abs(n).toExponential(Math.min(digits + 29, 100));
  const e = exact.indexOf('e');
  const all = exact.slice(0, e).replace('.', '');
  let exp = Number(exact.slice(e + 1));
  let mant = all.slice(0, digits);
  const first = all.charCodeAt(digits) - 48;
  const tail = /[1-9]/.test(all.slice(digits + 1));
  if (first > 5 || (first === 5 && (tail || (mant.charCodeAt(mant.length - 1) - 48) % 2 === 1))) {
    const bumped = (BigInt(mant) + 1n).toString();
    if (bumped.length > mant.length) exp++;
    mant = bumped.slice(0, digits);
  }
  mant = mant.replace(/0+$/, '') || '0';
  const decpt = exp + 1;
  let body: string;
  if (decpt < -3 || decpt > digits) {
    body = `${mant[0]}.${mant.length > 1 ? mant.slice(1) : '0'}${expChar}${exp < 0 ? '-' : '+'}${Math.abs(exp)}`;
  } else if (decpt <= 0) body = `0.${'0'.repeat(-decpt)}${mant}`;
  else if (mant.length <= decpt) body = mant + '0'.repeat(decpt - mant.length);
  else body = `${mant.slice(0, decpt)}.${mant.slice(decpt)}`;
  return n < 0 ? `-${body}` : body;
}

/** PHP's sprintf (the `format` filter); widths and precisions are bounded by the string limit. */
export function sprintf(st: RenderState, format: string, args: readonly Value[]): string {
  let next = 0;
  let out = '';
  let last = 0;
  SPEC.lastIndex = 0;
  for (let m = SPEC.exec(format); m; m = SPEC.exec(format)) {
    out += format.slice(last, m.index);
    last = m.index + m[0].length;
    const conv = m[5]!;
    if (conv === '%') {
      out += '%';
      continue;
    }
    // flags are re-parsed from the matched text (the repeated group only keeps the last one)
    const flagText = /^%(?:\d+\$)?((?:[-+ 0]|'.)*)/.exec(m[0])![1]!;
    let left = false;
    let plus = false;
    let pad = ' ';
    for (let i = 0; i < flagText.length; i++) {
      const f = flagText[i];
      if (f === '-') left = true;
      else if (f === '+') plus = true;
      else if (f === '0') pad = '0';
      else if (f === ' ') pad = ' ';
      else if (f === "'") pad = flagText[++i]!;
    }
    const width = m[3] ? Number(m[3]) : 0;
    const precision = m[4] !== undefined ? Number(m[4]) : undefined;
    if (width > st.limits.maxStringLength || (precision ?? 0) > st.limits.maxStringLength) {
      st.checkString(Math.max(width, precision ?? 0));
    }
    const argIndex = m[1] ? Number(m[1]) - 1 : next++;
    if (argIndex >= args.length)
      return fail(`${args.length + 1} arguments are required, ${argIndex + 2} given`);
    const arg = args[argIndex]!;
    if ('eEfFgG'.includes(conv)) {
      // PHP writes infinity (of either sign) and NaN as a bare word, without width; zero-padded
      // to the right, a sign (-INF's, or the + flag's) takes the place of the word's first letter
      const n = toFloat(arg);
      if (!Number.isFinite(n)) {
        const word = Number.isNaN(n) ? 'NaN' : 'INF';
        out += pad === '0' && !left && (n < 0 || plus) ? `${n < 0 ? '-' : '+'}${word.slice(1)}` : word;
        continue;
      }
    }
    let s: string;
    switch (conv) {
      case 'd': {
        const n = toInt64(arg);
        s = String(n);
        if (plus && n >= 0) s = `+${s}`;
        break;
      }
      case 'u': {
        const n = toInt64(arg);
        s = n < 0 ? BigInt.asUintN(64, BigInt(n)).toString() : String(n);
        break;
      }
      case 'f':
      case 'F': {
        const n = toFloat(arg);
        s = fixed(n, Math.min(precision ?? 6, 53));
        if (plus && n >= 0) s = `+${s}`;
        break;
      }
      case 'e':
      case 'E': {
        const n = toFloat(arg);
        const p = precision ?? 6;
        s = n.toExponential(Math.min(p, 100)).replace(/e([+-])(\d)$/, 'e$1$2');
        if (conv === 'E') s = s.toUpperCase();
        if (plus && n >= 0) s = `+${s}`;
        break;
      }
      case 'g':
      case 'G': {
        const n = toFloat(arg);
        s = general(
          n,
          precision === undefined ? 6 : Math.min(Math.max(precision, 1), 53),
          conv === 'g' ? 'e' : 'E',
        );
        if (plus && n >= 0) s = `+${s}`;
        break;
      }
      case 's': {
        s = castStr(arg);
        if (precision !== undefined) s = s.slice(0, precision);
        break;
      }
      case 'c':
        s = String.fromCharCode(toInt(arg) & 0xff);
        break;
      case 'x':
        s = BigInt.asUintN(64, BigInt(toInt64(arg))).toString(16);
        break;
      case 'X':
        s = BigInt.asUintN(64, BigInt(toInt64(arg)))
          .toString(16)
          .toUpperCase();
        break;
      case 'o':
        s = BigInt.asUintN(64, BigInt(toInt64(arg))).toString(8);
        break;
      case 'b':
        s = BigInt.asUintN(64, BigInt(toInt64(arg))).toString(2);
        break;
      default:
        s = '';
    }
    // PHP pads to a width in bytes: "山田" is 6 wide
    const size = width > s.length ? utf8Length(s) : s.length;
    if (size < width) {
      if (left) s = s + (pad === '0' ? ' ' : pad).repeat(width - size);
      else if (pad === '0' && /^[+-]/.test(s) && 'deEfFgGu'.includes(conv)) {
        s = s[0] + '0'.repeat(width - size) + s.slice(1);
      } else s = pad.repeat(width - size) + s;
    }
    out += s;
    if (out.length > 4096) st.checkString(out.length);
  }
  out += format.slice(last);
  st.checkString(out.length);
  return out;
}
