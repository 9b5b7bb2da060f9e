import { charge } from './budget.js';
import { compare, looseEquals } from './compare.js';
import { castStr, isNumericString, numberParam, toArith, toBool, toInt, toStr } from './convert.js';
import { fail } from './fault.js';
import { Markup } from './markup.js';
import { ArrayBuilder, PhpArray } from './php-array.js';
import { compilePcre } from './regex.js';
import type { RenderState } from './state.js';
import type { Value } from './value.js';

const INT_MAX = 9.2233720368547758e18;

export function add(a: Value, b: Value): Value {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (a instanceof PhpArray && b instanceof PhpArray) {
    // array union: keys of a, then keys of b not in a
    const out = new ArrayBuilder();
    a.forEach((v, k) => {
      out.set(k, v);
    });
    b.forEach((v, k) => {
      if (!a.has(k)) out.set(k, v);
    });
    return out.build();
  }
  return toArith(a, b, '+', true) + toArith(b, a, '+', false);
}

export function sub(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return toArith(a, b, '-', true) - toArith(b, a, '-', false);
}

export function mul(a: Value, b: Value): number {
  const r =
    typeof a === 'number' && typeof b === 'number'
      ? a * b
      : toArith(a, b, '*', true) * toArith(b, a, '*', false);
  return r === 0 ? 0 : r;
}

export function div(a: Value, b: Value): number {
  const x = toArith(a, b, '/', true);
  const y = toArith(b, a, '/', false);
  if (y === 0) return fail('Division by zero');
  const q = x / y;
  return q === 0 && Number.isInteger(x) && Number.isInteger(y) ? 0 : q;
}

export function mod(a: Value, b: Value): number {
  const x = toIntOperand(toArith(a, b, '%', true));
  const y = toIntOperand(toArith(b, a, '%', false));
  if (y === 0) return fail('Modulo by zero');
  const r = x % y;
  return r === 0 ? 0 : r;
}

function toIntOperand(n: number): number {
  return Number.isFinite(n) ? Math.trunc(n) || 0 : 0;
}

export function floorDiv(a: Value, b: Value): number {
  const q = div(a, b);
  const f = Math.floor(q);
  return Number.isFinite(f) && Math.abs(f) < INT_MAX ? f || 0 : toIntOperand(f);
}

export function pow(a: Value, b: Value): number {
  return toArith(a, b, '**', true) ** toArith(b, a, '**', false);
}

export function neg(a: Value): number {
  if (typeof a === 'number') return a === 0 ? 0 : -a;
  const n = toArith(a, -1, '*', true);
  return n === 0 ? 0 : -n;
}

export function pos(a: Value): number {
  return typeof a === 'number' ? a : toArith(a, 1, '*', true);
}

/**
 * PHP's bitwise operators on two strings work on their bytes: & and ^ as long as the shorter,
 * | as the longer (the shorter padded with zero bytes).
 */
function stringBitwise(a: string, b: string, op: '&' | '|' | '^'): string {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  const n = op === '|' ? Math.max(x.length, y.length) : Math.min(x.length, y.length);
  charge(n >> 10);
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) {
    const p = x[i] ?? 0;
    const q = y[i] ?? 0;
    out[i] = op === '&' ? p & q : op === '|' ? p | q : p ^ q;
  }
  return out.toString('utf8');
}

function bitwise(a: Value, b: Value, op: '&' | '|' | '^'): number | string {
  if (typeof a === 'string' && typeof b === 'string') return stringBitwise(a, b, op);
  // PHP converts like arithmetic: "5x" is 5 with a warning, "abc" a TypeError
  const x = toIntOperand(toArith(a, b, op, true));
  const y = toIntOperand(toArith(b, a, op, false));
  if ((x | 0) === x && (y | 0) === y) return op === '&' ? x & y : op === '|' ? x | y : x ^ y;
  const bx = BigInt.asIntN(64, BigInt(x));
  const by = BigInt.asIntN(64, BigInt(y));
  return Number(BigInt.asIntN(64, op === '&' ? bx & by : op === '|' ? bx | by : bx ^ by));
}
export const bitAnd = (a: Value, b: Value): number | string => bitwise(a, b, '&');
export const bitOr = (a: Value, b: Value): number | string => bitwise(a, b, '|');
export const bitXor = (a: Value, b: Value): number | string => bitwise(a, b, '^');

export function concat(st: RenderState, a: Value, b: Value): string {
  const x = castStr(a);
  const y = castStr(b);
  if (x.length + y.length > 4096) st.checkString(x.length + y.length);
  return x + y;
}

/** Twig's `in` (twig_in_filter). */
export function contains(needleIn: Value, haystackIn: Value): boolean {
  // twig_in_filter reads Markup as its text on both sides
  const value = needleIn instanceof Markup ? needleIn.text : needleIn;
  const haystack = haystackIn instanceof Markup ? haystackIn.text : haystackIn;
  if (typeof haystack === 'string') {
    if (haystack.length > 4096) charge(haystack.length >> 10);
    if (typeof value === 'string' || typeof value === 'number') {
      const needle = toStr(value);
      return needle === '' || haystack.includes(needle);
    }
    return false;
  }
  if (!(haystack instanceof PhpArray)) return false;
  charge(haystack.size >> 2);
  return haystack.some((item) => looseEquals(value, item));
}

export function startsWith(a: Value, b: Value): boolean {
  return typeof a === 'string' && typeof b === 'string' && a.startsWith(b);
}
export function endsWith(a: Value, b: Value): boolean {
  return typeof a === 'string' && typeof b === 'string' && a.endsWith(b);
}

export function matches(a: Value, pattern: Value): number {
  if (a !== null && typeof a === 'object' && !(a instanceof Markup)) {
    return fail('matches expects a string subject');
  }
  // preg_match's int result, so a failed match prints "0"
  const subject = toStr(a);
  if (subject.length > 1024) charge(subject.length >> 8);
  return compilePcre(toStr(pattern)).test(subject) ? 1 : 0;
}

export function lessThan(a: Value, b: Value): boolean {
  return compare(a, b) < 0;
}

/** PHP's range() as Twig's `..` and range() use it; sized before anything is built. */
export function range(st: RenderState, low: Value, high: Value, stepArg: Value = 1): PhpArray {
  const isChar = (v: Value): v is string => typeof v === 'string' && v.length >= 1 && !isNumericString(v);
  let step = Math.abs(numberParam(stepArg, 'range', 3, 'step', false));
  if (isChar(low) && isChar(high)) {
    const a = low.charCodeAt(0) & 0xff;
    const b = high.charCodeAt(0) & 0xff;
    const s = Math.trunc(step) || 1;
    const out: Value[] = [];
    if (a <= b) for (let c = a; c <= b; c += s) out.push(String.fromCharCode(c));
    else for (let c = a; c >= b; c -= s) out.push(String.fromCharCode(c));
    return PhpArray.list(out);
  }
  // PHP 8.2's range() reads a non-numeric string bound like (int), without a warning: "3x" is 3
  const bound = (v: Value, other: Value): number =>
    typeof v === 'string' && !isNumericString(v) ? toInt(v) : toArith(v, other, 'range', true);
  const lo = bound(low, high);
  const hi = bound(high, low);
  if (step === 0) return fail('range(): Argument #3 ($step) cannot be 0');
  const isFloat = !Number.isInteger(lo) || !Number.isInteger(hi) || !Number.isInteger(step);
  if (!isFloat) step = Math.trunc(step);
  const count = Math.floor(Math.abs(hi - lo) / step) + 1;
  if (!Number.isFinite(count)) return fail('range(): invalid range');
  if (Math.abs(hi - lo) < step && lo !== hi) {
    return fail('range(): Argument #3 ($step) must not exceed the specified range');
  }
  st.checkArray(count);
  const out = new Array<Value>(count);
  const dir = lo <= hi ? 1 : -1;
  for (let i = 0; i < count; i++) out[i] = lo + dir * i * step;
  return PhpArray.list(out);
}

export { toBool };
