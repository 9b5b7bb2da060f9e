import { warn } from './budget.js';
import { fail } from './fault.js';
import { floatToInt, floatToIntCapped, INT64_MAX, INT64_MIN, int64, type Num } from './int64.js';
import { Markup } from './markup.js';
import { numberToString } from './number-format.js';
import { PhpArray } from './php-array.js';
import type { TwigObject } from './twig-object.js';
import type { Value } from './value.js';

/**
 * A string argument of a PHP function: an array there is PHP's TypeError, so the render fails
 * (the implicit conversions that only warn go through castStr).
 */
export function toStr(v: Value): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return numberToString(v);
    case 'boolean':
      return v ? '1' : '';
    case 'bigint':
      return String(v);
    default:
      if (v === null) return '';
      if (v instanceof PhpArray) return fail('Array to string conversion');
      if (v instanceof Markup) return v.text;
      return fail(`Object of class ${(v as TwigObject).phpClass} could not be converted to string`);
  }
}

/**
 * PHP's implicit string conversion (echo, `~`, interpolation, implode, sprintf's %s): an array
 * becomes "Array" with a warning, and the render goes on as PHP's does.
 */
export function castStr(v: Value): string {
  if (v instanceof PhpArray) {
    warn('Array to string conversion');
    return 'Array';
  }
  return toStr(v);
}

/** PHP truthiness: "0", "", 0, 0.0, null, false and the empty array are false. */
export function toBool(v: Value): boolean {
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'string':
      return v !== '' && v !== '0';
    case 'number':
      return v !== 0;
    case 'bigint':
      return v !== 0n;
    default:
      if (v === null) return false;
      if (v instanceof PhpArray) return v.size > 0;
      return true;
  }
}

const WS = '[ \\t\\n\\r\\v\\f]*';
const NUM = '[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?';
const NUMERIC = new RegExp(`^${WS}${NUM}${WS}$`);
const LEADING = new RegExp(`^${WS}${NUM}`);
const INTEGER = /^[ \t\n\r\v\f]*[+-]?[0-9]+[ \t\n\r\v\f]*$/;
const LEADING_ZEROS = /^([+-]?)0+(?=[0-9])/;

/** PHP's is_numeric for strings (leading and trailing whitespace allowed). */
export function isNumericString(s: string): boolean {
  // a numeric string ends in a digit, a point or whitespace: most other strings (hex ids,
  // words) are told apart by their last character, without the regex
  const c = s.charCodeAt(s.length - 1);
  if (!((c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x20 || (c >= 0x09 && c <= 0x0d))) return false;
  return NUMERIC.test(s);
}

/**
 * The number a numeric string denotes: an int when written as an integer within int64 (a bigint
 * beyond 2^53), else a float ("9223372036854775808" overflows to one, like PHP).
 */
export function parseNumeric(s: string): Num {
  const n = Number(s.trim());
  if (Number.isSafeInteger(n)) return n === 0 && INTEGER.test(s) ? 0 : n; // "-0" is int 0, "-0.0" float -0
  // beyond 2^63 by more than a double's rounding it is a float whatever the digits (and a long
  // digit string never reaches BigInt's parser)
  if (!(Math.abs(n) < 9.3e18) || !INTEGER.test(s)) return n;
  const b = BigInt(s.trim().replace(LEADING_ZEROS, '$1'));
  return b > INT64_MAX || b < INT64_MIN ? n : int64(b);
}

/** Whether a numeric string is written as an integer (PHP's is_numeric_string answering IS_LONG or overflowing). */
export function isIntegerString(s: string): boolean {
  return INTEGER.test(s);
}

/** 1 or -1 when `s` is an integer string beyond int64 (so `n`, its value, is a float), else 0. */
export function intOverflow(s: string, n: Num): -1 | 0 | 1 {
  if (typeof n === 'bigint' || Math.abs(n) < 9.2e18 || !INTEGER.test(s)) return 0;
  return n > 0 ? 1 : -1;
}

/** The leading number of a string, or undefined when it does not start with one ("12abc" -> 12). */
export function leadingNumber(s: string): Num | undefined {
  const m = LEADING.exec(s);
  return m ? parseNumeric(m[0]) : undefined;
}

export function phpType(v: Value): string {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isSafeInteger(v) ? 'int' : 'float';
    case 'bigint':
      return 'int';
    default:
      return v === null ? 'null' : v instanceof PhpArray ? 'array' : (v as TwigObject).phpClass;
  }
}

/** Operand of an arithmetic operator (PHP 8: non-numeric strings and arrays are type errors). */
export function toArith(v: Value, other: Value, op: string, left: boolean): Num {
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      if (NUMERIC.test(v)) return parseNumeric(v);
      // "12abc" counts as 12 in PHP, with a warning; "abc" is a TypeError (below)
      const n = leadingNumber(v);
      if (n !== undefined) {
        warn('A non-numeric value encountered');
        return n;
      }
      break;
    }
    default:
      if (v === null) return 0;
  }
  const a = left ? v : other;
  const b = left ? other : v;
  return fail(`Unsupported operand types: ${phpType(a)} ${op} ${phpType(b)}`);
}

/**
 * An int (or int|float) parameter of a PHP built-in, in PHP's coercive mode: numbers, booleans,
 * null and numeric strings convert; any other string ("2x" included) or an array is a TypeError.
 */
export function numberParam(v: Value, fn: string, position: number, name: string, int = true): number {
  if (
    typeof v === 'string' ? !NUMERIC.test(v) : v instanceof PhpArray || (typeof v === 'object' && v !== null)
  ) {
    return fail(
      `${fn}(): Argument #${position} ($${name}) must be of type ${int ? 'int' : 'int|float'}, ${phpType(v)} given`,
    );
  }
  return int ? toInt(v) : toFloat(v);
}

/**
 * PHP's (int) cast as a JS number, for counts, offsets and flags (an int beyond 2^53 comes out
 * rounded); toInt64 keeps it exact where the int is a result.
 */
export function toInt(v: Value): number {
  const n = toInt64(v);
  return typeof n === 'number' ? n : Number(n);
}

/** PHP's (int) cast, exact to 64 bits. */
export function toInt64(v: Value): Num {
  switch (typeof v) {
    case 'number':
      return Number.isSafeInteger(v) ? v || 0 : floatToInt(v);
    case 'bigint':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const n = leadingNumber(v);
      if (n === undefined) return 0;
      return typeof n === 'bigint' ? n : floatToIntCapped(n);
    }
    default:
      if (v === null) return 0;
      return v instanceof PhpArray ? (v.size > 0 ? 1 : 0) : 1;
  }
}

/** A numeric operand as a double (PHP's (float) of an int). */
export function toDouble(n: Num): number {
  return typeof n === 'number' ? n : Number(n);
}

/** PHP's (float) cast. */
export function toFloat(v: Value): number {
  switch (typeof v) {
    case 'number':
      return v;
    case 'bigint':
      return Number(v);
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const n = leadingNumber(v);
      return n === undefined ? 0 : Number(n);
    }
    default:
      if (v === null) return 0;
      return v instanceof PhpArray ? (v.size > 0 ? 1 : 0) : 1;
  }
}
