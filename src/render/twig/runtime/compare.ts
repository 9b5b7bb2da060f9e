import { charge, warn } from './budget.js';
import { intOverflow, isNumericString, parseNumeric, phpType, toBool, toStr } from './convert.js';
import type { Num } from './int64.js';
import { Markup } from './markup.js';
import { PhpArray } from './php-array.js';
import { TwigObject } from './twig-object.js';
import type { Value } from './value.js';

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** strcmp on the UTF-8 bytes; for well-formed text this matches code point order. */
export function strcmp(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function numCmp(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : a === b ? 0 : 1;
}

/**
 * `<=>` of two numbers: ints exactly, an int against a float as two doubles (PHP 8). A bigint lies
 * beyond ±2^53, so against a number inside that range its sign decides.
 */
function numCmpNum(x: Num, y: Num): number {
  if (typeof x === 'number') {
    if (typeof y === 'number') return numCmp(x, y);
    return Math.abs(x) <= Number.MAX_SAFE_INTEGER ? (y > 0n ? -1 : 1) : numCmp(x, Number(y));
  }
  if (typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  return Math.abs(y) <= Number.MAX_SAFE_INTEGER ? (x > 0n ? 1 : -1) : numCmp(Number(x), y);
}

/**
 * Two numeric strings (zendi_smart_strcmp): as numbers, except that integer strings beyond int64
 * are compared as text when they overflow to the same float, and such a string is beyond any int.
 */
function numericStrCmp(a: string, b: string): number {
  const x = parseNumeric(a);
  const y = parseNumeric(b);
  if (typeof x === 'number' && typeof y === 'number' && Math.abs(x) < 9.2e18 && Math.abs(y) < 9.2e18) {
    return numCmp(x, y);
  }
  const ox = intOverflow(a, x);
  const oy = intOverflow(b, y);
  if (ox !== 0 && ox === oy && x === y) return sign(strcmp(a, b));
  const xInt = typeof x === 'bigint' || Number.isSafeInteger(x);
  const yInt = typeof y === 'bigint' || Number.isSafeInteger(y);
  if (xInt && oy !== 0) return -oy;
  if (yInt && ox !== 0) return ox;
  if (typeof x === 'number' && x === y && !Number.isFinite(x)) return sign(strcmp(a, b));
  return numCmpNum(x, y);
}

/** Objects that can be ordered among themselves (dates) expose a number. */
interface Comparable {
  compareKey(): number;
}
function isComparable(v: TwigObject): v is TwigObject & Comparable {
  return 'compareKey' in v;
}

/** PHP 8's `<=>` (also what `==`, `<`, `in` and sorting use). Uncomparable arrays give 1. */
export function compare(aIn: Value, bIn: Value, depth = 0): number {
  // PHP compares an object with __toString against a string as that string; two Markups compare
  // their text too (same class, compared property by property)
  const a = aIn instanceof Markup && (typeof bIn === 'string' || bIn instanceof Markup) ? aIn.text : aIn;
  const b = bIn instanceof Markup && (typeof aIn === 'string' || aIn instanceof Markup) ? bIn.text : bIn;
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'number' && tb === 'number') return numCmp(a as number, b as number);
  if (ta === 'string' && tb === 'string') {
    if ((a as string).length > 4096) charge((a as string).length >> 10);
    if (a === b) return 0;
    if (isNumericString(a as string) && isNumericString(b as string)) {
      return numericStrCmp(a as string, b as string);
    }
    return sign(strcmp(a as string, b as string));
  }
  if (ta === 'boolean' || tb === 'boolean') return numCmp(toBool(a) ? 1 : 0, toBool(b) ? 1 : 0);
  if (a === null) {
    if (tb === 'string') return b === '' ? 0 : -1;
    return numCmp(0, toBool(b) ? 1 : 0);
  }
  if (b === null) {
    if (ta === 'string') return a === '' ? 0 : 1;
    return numCmp(toBool(a) ? 1 : 0, 0);
  }
  const na = ta === 'number' || ta === 'bigint';
  const nb = tb === 'number' || tb === 'bigint';
  if (na && nb) return numCmpNum(a as Num, b as Num);
  if (na && tb === 'string') {
    if (isNumericString(b as string)) return numCmpNum(a as Num, parseNumeric(b as string));
    return sign(strcmp(toStr(a as Num), b as string));
  }
  if (ta === 'string' && nb) {
    if (isNumericString(a as string)) return numCmpNum(parseNumeric(a as string), b as Num);
    return sign(strcmp(a as string, toStr(b as Num)));
  }
  if (a instanceof PhpArray) {
    // an array is greater than anything but an object
    if (!(b instanceof PhpArray)) return b instanceof TwigObject ? -1 : 1;
    if (a.size !== b.size) return a.size < b.size ? -1 : 1;
    if (depth > 256) return 1;
    charge(a.size >> 2);
    for (const k of a.keys()) {
      const bv = b.get(k);
      if (bv === undefined) return 1;
      const c = compare(a.get(k)!, bv, depth + 1);
      if (c !== 0) return c;
    }
    return 0;
  }
  if (b instanceof PhpArray) return a instanceof TwigObject ? 1 : -1;
  if (a instanceof TwigObject && b instanceof TwigObject) {
    if (a === b) return 0;
    if (isComparable(a) && isComparable(b)) return numCmp(a.compareKey(), b.compareKey());
    return 1;
  }
  // object vs number: PHP casts the object, which warns and reads as 1
  if ((nb && a instanceof TwigObject) || (na && b instanceof TwigObject)) {
    const n = (nb ? b : a) as Num;
    warn(`Object of class ${phpType(nb ? a : b)} could not be converted to ${phpType(n)}`);
    return nb ? numCmpNum(1, n) : numCmpNum(n, 1);
  }
  // object vs string: PHP compares an object as greater (or 0 against true, handled above)
  return a instanceof TwigObject ? 1 : -1;
}

export function looseEquals(a: Value, b: Value): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  return compare(a, b) === 0;
}

/** Whether a number is a PHP int: a safe integer other than -0 (only a float can be -0). */
function isIntNumber(n: number): boolean {
  return Number.isSafeInteger(n) && !Object.is(n, -0);
}

/** PHP's `===`. */
export function identical(a: Value, b: Value): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b && isIntNumber(a) === isIntNumber(b);
  if (a instanceof PhpArray && b instanceof PhpArray) {
    if (a.size !== b.size) return false;
    const ka = a.keys();
    const kb = b.keys();
    for (let i = 0; i < ka.length; i++) {
      if (ka[i] !== kb[i] || !identical(a.get(ka[i]!)!, b.get(kb[i]!)!)) return false;
    }
    return true;
  }
  return a === b;
}
