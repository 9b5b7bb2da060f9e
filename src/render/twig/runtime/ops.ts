import { Arrow } from './arrow.js';
import { charge } from './budget.js';
import { compare, looseEquals } from './compare.js';
import {
  castStr,
  isNumericString,
  numberParam,
  phpType,
  toArith,
  toBool,
  toDouble,
  toInt64,
  toStr,
} from './convert.js';
import { exactPow } from './exact-pow.js';
import { fail } from './fault.js';
import { foreachSubject } from './foreach.js';
import { big, floatToInt, int64, intOf, isIntNum, type Num, powInt } from './int64.js';
import { Markup } from './markup.js';
import { ArrayBuilder, PhpArray } from './php-array.js';
import { compilePcre } from './regex.js';
import type { RenderState } from './state.js';
import { TwigObject } from './twig-object.js';
import type { Value } from './value.js';

const SAFE = Number.MAX_SAFE_INTEGER;

/*
 * Arithmetic: both operands JS numbers with a result inside ±(2^53 - 1) is the fast path and
 * stays exact. Anything else (a bigint operand, an int result beyond 2^53) goes through the
 * exact int64 path, which overflows to a float the way PHP does: (double)a op (double)b.
 */

export function add(a: Value, b: Value): Value {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    return r <= SAFE && r >= -SAFE ? r : addNum(a, b);
  }
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
  return addNum(toArith(a, b, '+', true), toArith(b, a, '+', false));
}

function addNum(x: Num, y: Num): Num {
  if (isIntNum(x) && isIntNum(y)) {
    const r = intOf(big(x) + big(y));
    if (r !== undefined) return r;
  }
  return toDouble(x) + toDouble(y);
}

export function sub(a: Value, b: Value): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    return r <= SAFE && r >= -SAFE ? r : subNum(a, b);
  }
  return subNum(toArith(a, b, '-', true), toArith(b, a, '-', false));
}

function subNum(x: Num, y: Num): Num {
  if (isIntNum(x) && isIntNum(y)) {
    const r = intOf(big(x) - big(y));
    if (r !== undefined) return r;
  }
  return toDouble(x) - toDouble(y);
}

export function mul(a: Value, b: Value): Num {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (r <= SAFE && r >= -SAFE) return r === 0 ? negZero(r, a, b) : r;
    return mulNum(a, b);
  }
  return mulNum(toArith(a, b, '*', true), toArith(b, a, '*', false));
}

function mulNum(x: Num, y: Num): Num {
  if (isIntNum(x) && isIntNum(y)) {
    const r = intOf(big(x) * big(y));
    if (r !== undefined) return r;
  }
  const r = toDouble(x) * toDouble(y);
  return r === 0 && typeof x === 'number' && typeof y === 'number' ? negZero(r, x, y) : r;
}

/**
 * A zero product: -0 only when an operand is -0, the one zero known to be a float (0 * -1 is the
 * int 0; 0.0 * -1 reads as it too, since integral floats are not told from ints).
 */
function negZero(r: number, a: number, b: number): number {
  return Object.is(r, -0) && (Object.is(a, -0) || Object.is(b, -0)) ? r : 0;
}

export function div(a: Value, b: Value): Num {
  const x = toArith(a, b, '/', true);
  const y = toArith(b, a, '/', false);
  if (typeof x === 'number' && typeof y === 'number') {
    if (y === 0) return fail('Division by zero');
    const q = x / y;
    return q === 0 && Number.isInteger(x) && Number.isInteger(y) ? 0 : q;
  }
  if (y === 0) return fail('Division by zero');
  // int / int is an int when it divides exactly (PHP_INT_MIN / -1 overflows to a float)
  if (isIntNum(x) && isIntNum(y)) {
    const bx = big(x);
    const by = big(y);
    if (bx % by === 0n) {
      const r = intOf(bx / by);
      if (r !== undefined) return r;
    }
  }
  return toDouble(x) / toDouble(y);
}

export function mod(a: Value, b: Value): Num {
  const x = toIntOperand(a, toArith(a, b, '%', true));
  const y = toIntOperand(b, toArith(b, a, '%', false));
  if (y === 0) return fail('Modulo by zero');
  if (typeof x === 'number' && typeof y === 'number') {
    const r = x % y;
    return r === 0 ? 0 : r;
  }
  return int64(big(x) % big(y));
}

/**
 * PHP's int conversion of an operand of %: a float is truncated, modulo 2^64 beyond int64; a
 * numeric string is read as an int clamped to int64 ("1e20" % 7 is PHP_INT_MAX % 7).
 */
function toIntOperand(v: Value, n: Num): Num {
  if (typeof n === 'bigint' || Number.isSafeInteger(n)) return n || 0;
  return typeof v === 'string' ? toInt64(v) : floatToInt(n);
}

/** Twig's `//`: (int) floor(a / b), floor always giving a float. */
export function floorDiv(a: Value, b: Value): Num {
  const q = div(a, b);
  return floatToInt(Math.floor(toDouble(q)));
}

export function pow(a: Value, b: Value): Num {
  const x = toArith(a, b, '**', true);
  const y = toArith(b, a, '**', false);
  if (typeof x === 'number' && typeof y === 'number') {
    const r = exactPow(x, y);
    // a safe int result of safe ints is exact; a larger one is recomputed as PHP does
    if (r > SAFE || r < -SAFE) {
      if (Number.isSafeInteger(x) && Number.isSafeInteger(y) && y >= 0) return powInt(BigInt(x), BigInt(y));
    }
    return r;
  }
  if (isIntNum(x) && isIntNum(y) && big(y) >= 0n) return powInt(big(x), big(y));
  return exactPow(toDouble(x), toDouble(y));
}

/** Unary minus: PHP multiplies by -1 (so -PHP_INT_MIN is a float). */
export function neg(a: Value): Num {
  if (typeof a === 'number') return a === 0 ? 0 : -a;
  const n = toArith(a, -1, '*', true);
  if (typeof n === 'bigint') return intOf(-n) ?? -Number(n);
  return n === 0 ? 0 : -n;
}

export function pos(a: Value): Num {
  return typeof a === 'number' ? a : toArith(a, 1, '*', true);
}

function bitwise(a: Value, b: Value, op: '&' | '|' | '^'): Num | string {
  if (typeof a === 'string' && typeof b === 'string') return stringBitwise(a, b, op);
  // PHP converts like arithmetic: "5x" is 5 with a warning, "abc" a TypeError
  const x = toIntOperand(a, toArith(a, b, op, true));
  const y = toIntOperand(b, toArith(b, a, op, false));
  if (typeof x === 'number' && typeof y === 'number' && (x | 0) === x && (y | 0) === y) {
    return op === '&' ? x & y : op === '|' ? x | y : x ^ y;
  }
  const bx = BigInt.asIntN(64, big(x));
  const by = BigInt.asIntN(64, big(y));
  return int64(BigInt.asIntN(64, op === '&' ? bx & by : op === '|' ? bx | by : bx ^ by));
}
export const bitAnd = (a: Value, b: Value): Num | string => bitwise(a, b, '&');
export const bitOr = (a: Value, b: Value): Num | string => bitwise(a, b, '|');
export const bitXor = (a: Value, b: Value): Num | string => bitwise(a, b, '^');

/**
 * PHP applies a bitwise operator to two strings byte by byte, numeric or not ("12" b-and "10" is
 * "10"): & and ^ to the shorter length, | keeping the longer's tail. Bytes are UTF-8's; a result
 * that is not UTF-8 comes out with replacement characters.
 */
function stringBitwise(a: string, b: string, op: '&' | '|' | '^'): string {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  const n = op === '|' ? Math.max(x.length, y.length) : Math.min(x.length, y.length);
  if (n > 4096) charge(n >> 10);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = x[i] ?? 0;
    const q = y[i] ?? 0;
    out[i] = op === '&' ? p & q : op === '|' ? p | q : p ^ q;
  }
  return new TextDecoder().decode(out);
}

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
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
      const needle = toStr(value);
      return needle === '' || haystack.includes(needle);
    }
    return false;
  }
  if (!(haystack instanceof PhpArray)) return false;
  charge(haystack.size >> 2);
  // an object is looked for strictly (in_array's strict mode): only itself matches
  if (value instanceof TwigObject && !(value instanceof PhpArray))
    return haystack.some((item) => item === value);
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
  const bound = (v: Value, other: Value): Num =>
    typeof v === 'string' && !isNumericString(v) ? toInt64(v) : toArith(v, other, 'range', true);
  const loN = bound(low, high);
  const hiN = bound(high, low);
  if (step === 0) return fail('range(): Argument #3 ($step) cannot be 0');
  if ((typeof loN === 'bigint' || typeof hiN === 'bigint') && Number.isInteger(step)) {
    return bigRange(st, big(loN), big(hiN), BigInt(step));
  }
  const lo = toDouble(loN);
  const hi = toDouble(hiN);
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

/** range() over ints beyond 2^53 (a bigint bound; the other bound is an int or an integral float). */
function bigRange(st: RenderState, lo: bigint, hi: bigint, step: bigint): PhpArray {
  const span = lo <= hi ? hi - lo : lo - hi;
  if (span < step && span !== 0n) {
    return fail('range(): Argument #3 ($step) must not exceed the specified range');
  }
  const count = Number(span / step) + 1;
  st.checkArray(count);
  const out = new Array<Value>(count);
  const d = lo <= hi ? step : -step;
  for (let i = 0; i < count; i++) out[i] = int64(lo + BigInt(i) * d);
  return PhpArray.list(out);
}

export { toBool };

/**
 * Twig's `has some` / `has every`: the arrow called with each value and key until one answers
 * the other way, over what PHP's foreach walks (foreach.ts: a scalar warns and iterates nothing).
 */
export function hasSomeOrEvery(st: RenderState, subject: Value, b: Value, every: boolean): boolean {
  const a = foreachSubject(subject);
  for (const k of a.keys()) {
    st.step();
    // PHP calls the right side per element: over an empty array it is never looked at
    if (!(b instanceof Arrow)) return notCallable(b, every);
    if (toBool(b.call(st, [a.get(k)!, k])) !== every) return !every;
  }
  return every;
}

function notCallable(b: Value, every: boolean): never {
  if (typeof b === 'string') {
    return fail(`has ${every ? 'every' : 'some'}: calling a PHP function by name is not supported`);
  }
  return fail(`Value of type ${phpType(b)} is not callable`);
}
