import { exactPow } from './exact-pow.js';
/**
 * PHP's 64-bit integers beside JS numbers. A template number is a JS number unless it is a PHP
 * int outside ±(2^53 - 1), which no double holds exactly: such an int is a bigint, and a bigint
 * is never inside that range (intOf normalizes). So an integral JS number beyond 2^53 is a PHP
 * float, ordinary numbers keep their fast paths, and bigint only appears for the rare large id.
 */

/** A numeric operand: number (int when a safe integer, else float) or a large int. */
export type Num = number | bigint;

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -(2n ** 63n);

/** Whether a number is a PHP int (integral floats within the safe range read as ints too). */
export function isIntNum(n: Num): boolean {
  return typeof n === 'bigint' || Number.isSafeInteger(n);
}

/** An exact int result, or undefined when it leaves int64 (the caller then computes PHP's float). */
export function intOf(r: bigint): Num | undefined {
  if (r <= SAFE && r >= -SAFE) return Number(r);
  return r > INT64_MAX || r < INT64_MIN ? undefined : r;
}

/** An int within int64 (callers guarantee the range). */
export function int64(r: bigint): Num {
  return r <= SAFE && r >= -SAFE ? Number(r) : r;
}

/** PHP's (int) of a float: truncation, modulo 2^64 beyond int64 (zend_dval_to_lval), 0 for NAN/INF. */
export function floatToInt(d: number): Num {
  if (!Number.isFinite(d)) return 0;
  const t = Math.trunc(d);
  if (Number.isSafeInteger(t)) return t || 0;
  return int64(BigInt.asIntN(64, BigInt(t)));
}

/** PHP's (int) of a float read from a string: clamped to int64 (zend_dval_to_lval_cap). */
export function floatToIntCapped(d: number): Num {
  if (Number.isNaN(d)) return 0;
  const t = Math.trunc(d);
  if (Number.isSafeInteger(t)) return t || 0;
  if (t >= 9.2233720368547758e18) return INT64_MAX;
  if (t <= -9.2233720368547758e18) return INT64_MIN;
  return int64(BigInt(t));
}

/** A Num as an exact bigint (ints only). */
export function big(n: Num): bigint {
  return typeof n === 'bigint' ? n : BigInt(n);
}

/** ZEND_SIGNED_MULTIPLY_LONG: the int product, or PHP's float product on overflow. */
function mulOrFloat(a: bigint, b: bigint): { int: bigint | undefined; float: number } {
  const p = a * b;
  if (p > INT64_MAX || p < INT64_MIN) return { int: undefined, float: Number(a) * Number(b) };
  return { int: p, float: 0 };
}

/** PHP's int ** int for exponent >= 0 (pow_function_base): squaring, finishing with pow() in floats on overflow. */
export function powInt(base: bigint, exp: bigint): Num {
  if (exp === 0n) return 1;
  if (base === 0n) return 0;
  let l1 = 1n;
  let l2 = base;
  let i = exp;
  while (i >= 1n) {
    if (i % 2n !== 0n) {
      i--;
      const m = mulOrFloat(l1, l2);
      if (m.int === undefined) return m.float * exactPow(Number(l2), Number(i));
      l1 = m.int;
    } else {
      i /= 2n;
      const m = mulOrFloat(l2, l2);
      if (m.int === undefined) return Number(l1) * exactPow(m.float, Number(i));
      l2 = m.int;
    }
  }
  return int64(l1);
}
