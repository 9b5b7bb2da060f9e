/**
 * x ** y for an integer y, correctly rounded as C's pow (PHP's) gives it: V8's `**` can be an
 * ulp off (10 ** -5 is 9.999999999999999e-6 there, 1e-5 in PHP), which json_encode and `==`
 * show. Computed exactly on integers: |x| = m * 2^k, so x^y is m^y * 2^(k*y).
 */

/** Most bits m^|y| may have before the exact way gives up for V8's (cost bound). */
const MAX_BITS = 8192;

const view = new DataView(new ArrayBuffer(8));

export function exactPow(x: number, y: number): number {
  // an integer power that V8 gives as a safe integer is exact (every step was)
  if (Number.isInteger(x) && y >= 0) {
    const r = x ** y;
    if (Number.isSafeInteger(r)) return r;
  }
  if (!Number.isInteger(y) || !Number.isFinite(x) || x === 0 || y === 0 || Math.abs(y) > MAX_BITS) {
    return x ** y;
  }
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const biased = hi >>> 20;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let k = biased === 0 ? -1074 : biased - 1075;
  if (biased !== 0) m |= 1n << 52n;
  // strip the mantissa's trailing zeros so that 10 is 5 * 2^1, not a 53-bit number
  while ((m & 1n) === 0n) {
    m >>= 1n;
    k++;
  }
  const n = Math.abs(y);
  const mBits = m.toString(2).length;
  if (mBits * n > MAX_BITS) return x ** y;
  const power = m ** BigInt(n);
  const magnitude = y > 0 ? scaled(power, 1n, k * n) : scaled(1n, power, -k * n);
  // a subnormal result would be rounded twice: left to V8's
  if (magnitude !== 0 && magnitude < 2 ** -1022) return x ** y;
  return x < 0 && n % 2 === 1 ? -magnitude : magnitude;
}

/** 2^e for -1022 <= e <= 1023, built from its bits (exact). */
function pow2(e: number): number {
  view.setUint32(0, (e + 1023) << 20);
  view.setUint32(4, 0);
  return view.getFloat64(0);
}

/** num / den * 2^exp, rounded once to the nearest double (ties to even). */
function scaled(num: bigint, den: bigint, exp: number): number {
  // q: num / den * 2^shift truncated to about 66 bits
  const shift = 66 + den.toString(2).length - num.toString(2).length;
  const top = shift >= 0 ? num << BigInt(shift) : num;
  const bottom = shift >= 0 ? den : den << BigInt(-shift);
  let q = top / bottom;
  let e = exp - shift;
  // a remainder means the value lies strictly above q: a sticky bit keeps Number() from a false tie
  if (q * bottom !== top) {
    q = (q << 1n) | 1n;
    e--;
  }
  // Number(q) rounds q's 66 or more bits to 53; each power of two then scales it exactly
  let result = Number(q);
  while (e !== 0 && result !== 0 && Number.isFinite(result)) {
    const step = Math.max(-1022, Math.min(1023, e));
    result *= pow2(step);
    e -= step;
  }
  return result;
}
