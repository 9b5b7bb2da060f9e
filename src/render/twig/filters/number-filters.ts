import { isNumericString, numberParam, parseNumeric, toFloat, toInt, toStr } from '../runtime/convert.js';
import { fail } from '../runtime/fault.js';
import { intOf, type Num } from '../runtime/int64.js';
import { exactFixed } from '../runtime/number-format.js';
import { PhpArray } from '../runtime/php-array.js';
import { phpRound } from '../runtime/php-round.js';
import { sprintf } from '../runtime/sprintf.js';
import type { RenderState } from '../runtime/state.js';
import type { Value } from '../runtime/value.js';
import { type FilterDef, filter } from './types.js';

/** The most decimals PHP's printf %F writes (NDIG - 2 in main/snprintf.c). */
const PRINTF_MAX_DECIMALS = 318;

/** PHP's number_format. */
export function numberFormat(
  st: RenderState,
  n: number,
  decimals: number,
  point: string,
  sep: string,
): string {
  const dec = Math.max(0, decimals);
  if (dec > 1000) st.checkString(st.limits.maxStringLength + 1);
  const r = phpRound(n, dec);
  // PHP prints the magnitude's printf form, which for infinity has no sign
  if (!Number.isFinite(r)) return Number.isNaN(r) ? 'nan' : 'inf';
  // printf gives the exact digits (ties to even) up to its precision limit; number_format pads
  // the decimals past it with zeros
  const places = Math.min(dec, PRINTF_MAX_DECIMALS);
  let s = exactFixed(Math.abs(r), places);
  if (dec > places) s += '0'.repeat(dec - places);
  const [int, frac] = s.split('.') as [string, string | undefined];
  let grouped = '';
  for (let i = 0; i < int.length; i++) {
    if (i > 0 && (int.length - i) % 3 === 0) grouped += sep;
    grouped += int[i];
  }
  const neg = r < 0 && /[1-9]/.test(s);
  const out = (neg ? '-' : '') + grouped + (dec > 0 ? point + (frac ?? '') : '');
  st.checkString(out.length);
  return out;
}

/** abs() of a number; |PHP_INT_MIN| overflows to a float. */
function absNum(n: Num): Num {
  if (typeof n === 'number') return Math.abs(n);
  return n < 0n ? (intOf(-n) ?? -Number(n)) : n;
}

function abs(v: Value): Value {
  if (typeof v === 'number') return Math.abs(v);
  if (typeof v === 'bigint') return absNum(v);
  if (typeof v === 'string' && isNumericString(v)) return absNum(parseNumeric(v));
  if (v === null || typeof v === 'boolean') return Math.abs(toInt(v));
  return fail(
    `abs(): Argument #1 ($num) must be of type int|float, ${v instanceof PhpArray ? 'array' : 'string'} given`,
  );
}

export const NUMBER_FILTERS: Readonly<Record<string, FilterDef>> = {
  abs: filter([], (_st, v) => abs(v), { strict: true }),
  round: filter(['precision', 'method'], (_st, v, a) => {
    const method = a[1] === undefined ? 'common' : toStr(a[1]);
    // round()'s int parameter; ceil and floor only raise 10 to it
    const precision =
      method === 'common' ? numberParam(a[0] ?? 0, 'round', 2, 'precision') : toInt(a[0] ?? 0);
    // twig_round casts with (float) first: "abc" is 0 and "5 items" 5, without a warning
    const n = toFloat(v);
    if (method === 'common') return phpRound(n, precision);
    if (method !== 'ceil' && method !== 'floor') {
      return fail('The round filter only supports the "common", "ceil", and "floor" methods.');
    }
    const f = 10 ** precision;
    return (method === 'ceil' ? Math.ceil(n * f) : Math.floor(n * f)) / f;
  }),
  number_format: filter(['decimal', 'decimal_point', 'thousand_sep'], (st, v, a) => {
    const decimals =
      a[0] === undefined || a[0] === null ? 0 : numberParam(a[0], 'number_format', 2, 'decimals');
    const point = a[1] === undefined || a[1] === null ? '.' : toStr(a[1]);
    const sep = a[2] === undefined || a[2] === null ? ',' : toStr(a[2]);
    return numberFormat(st, toFloat(v), decimals, point, sep);
  }),
  format: filter([], (st, v, a) =>
    sprintf(
      st,
      toStr(v),
      a.map((x) => x ?? null),
    ),
  ),
};
