import { charge } from './budget.js';
import { isNumericString, parseNumeric, toBool } from './convert.js';
import { fail } from './fault.js';
import { Markup } from './markup.js';
import { numberToString } from './number-format.js';
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
  if ((a instanceof Markup && tb === 'number') || (b instanceof Markup && ta === 'number')) {
    return fail('Object of class Twig\\Markup could not be converted to int');
  }
  if (ta === 'string' && tb === 'string') {
    if ((a as string).length > 4096) charge((a as string).length >> 10);
    if (a === b) return 0;
    if (isNumericString(a as string) && isNumericString(b as string)) {
      return numCmp(parseNumeric(a as string), parseNumeric(b as string));
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
  if (ta === 'number' && tb === 'string') {
    if (isNumericString(b as string)) return numCmp(a as number, parseNumeric(b as string));
    return sign(strcmp(numberToString(a as number), b as string));
  }
  if (ta === 'string' && tb === 'number') {
    if (isNumericString(a as string)) return numCmp(parseNumeric(a as string), b as number);
    return sign(strcmp(a as string, numberToString(b as number)));
  }
  if (a instanceof PhpArray) {
    if (!(b instanceof PhpArray)) return 1;
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
  if (b instanceof PhpArray) return -1;
  if (a instanceof TwigObject && b instanceof TwigObject) {
    if (a === b) return 0;
    if (isComparable(a) && isComparable(b)) return numCmp(a.compareKey(), b.compareKey());
    return 1;
  }
  // object vs scalar: PHP compares an object as greater (or 0 against true, handled above)
  return a instanceof TwigObject ? 1 : -1;
}

export function looseEquals(a: Value, b: Value): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  return compare(a, b) === 0;
}

/** PHP's `===`. */
export function identical(a: Value, b: Value): boolean {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b && Number.isInteger(a) === Number.isInteger(b);
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
