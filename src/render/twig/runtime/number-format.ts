/**
 * PHP's printing of numbers. `echo` of a float uses precision=14 (%.14G with PHP's own exponent
 * style: "1.0E+15", "1.0E-5"); json_encode uses the shortest round-trip form ("1.0e+25").
 */

function sciParts(n: number, digits: number | undefined): { neg: boolean; mant: string; exp: number } {
  const s = digits === undefined ? Math.abs(n).toExponential() : Math.abs(n).toExponential(digits - 1);
  const e = s.indexOf('e');
  let mant = s.slice(0, e).replace('.', '');
  mant = mant.replace(/0+$/, '');
  if (mant === '') mant = '0';
  return { neg: n < 0, mant, exp: Number(s.slice(e + 1)) };
}

function render(n: number, digits: number | undefined, expChar: string, maxDecpt: number): string {
  if (Number.isNaN(n)) return 'NAN';
  if (!Number.isFinite(n)) return n > 0 ? 'INF' : '-INF';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const { neg, mant, exp } = sciParts(n, digits);
  const decpt = exp + 1;
  let body: string;
  if (decpt < -3 || decpt > maxDecpt) {
    const rest = mant.length > 1 ? mant.slice(1) : '0';
    body = `${mant[0]}.${rest}${expChar}${exp < 0 ? '-' : '+'}${Math.abs(exp)}`;
  } else if (decpt <= 0) {
    body = `0.${'0'.repeat(-decpt)}${mant}`;
  } else if (mant.length <= decpt) {
    body = mant + '0'.repeat(decpt - mant.length);
  } else {
    body = `${mant.slice(0, decpt)}.${mant.slice(decpt)}`;
  }
  return neg ? `-${body}` : body;
}

/** How `echo $float` prints (precision=14). */
export function floatToString(n: number): string {
  return render(n, 14, 'E', 14);
}

/**
 * How PHP prints a number: a safe integer is an int and prints in full; anything else is a float
 * (an integral number beyond 2^53 too: ints that large are bigints, see int64.ts).
 */
export function numberToString(n: number): string {
  // -0 only arises from float operations (round, ceil...): PHP prints it as "-0"
  if (Number.isSafeInteger(n)) return Object.is(n, -0) ? '-0' : String(n);
  return floatToString(n);
}

/** How json_encode prints a number (serialize_precision=-1: 17 digits before an exponent). */
export function numberToJson(n: number): string {
  if (Number.isSafeInteger(n)) return Object.is(n, -0) ? '-0' : String(n);
  if (!Number.isFinite(n)) return '0';
  return render(n, undefined, 'e', 17);
}

/**
 * printf's `%.{places}F` of a finite `x` that is not negative, as PHP's php_conv_fp writes it
 * (zend_dtoa mode 3): the double's exact value rounded to `places` decimals, an exact tie to
 * even, and every digit of the integer part however large. JS toFixed rounds ties up and
 * writes an exponent from 1e21, so it serves only where neither can happen.
 */
export function exactFixed(x: number, places: number): string {
  // A tie is x * 10^places ending in exactly .5, i.e. x an odd multiple of 2^-(places+1).
  if (x < 1e21 && places <= 100) {
    const halves = x * 2 ** (places + 1);
    if (!(Number.isInteger(halves) && halves % 2 === 1)) return x.toFixed(places);
  }
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  if (biased !== 0) mantissa |= 1n << 52n;
  const exponent = biased === 0 ? -1074 : biased - 1075;
  const scaled = mantissa * 10n ** BigInt(places);
  let digits: bigint;
  if (exponent >= 0) digits = scaled << BigInt(exponent);
  else {
    const shift = BigInt(-exponent);
    digits = scaled >> shift;
    const rest = scaled - (digits << shift);
    const half = 1n << (shift - 1n);
    if (rest > half || (rest === half && (digits & 1n) === 1n)) digits += 1n;
  }
  if (places === 0) return digits.toString();
  const s = digits.toString().padStart(places + 1, '0');
  return `${s.slice(0, -places)}.${s.slice(-places)}`;
}
