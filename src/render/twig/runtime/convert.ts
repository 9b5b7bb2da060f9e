import { warn } from './budget.js';
import { fail } from './fault.js';
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

/** PHP's is_numeric for strings (leading and trailing whitespace allowed). */
export function isNumericString(s: string): boolean {
  return NUMERIC.test(s);
}

/** The number a numeric string denotes (int when written as an integer that fits). */
export function parseNumeric(s: string): number {
  const n = Number(s.trim());
  if (INTEGER.test(s) && !Number.isSafeInteger(n)) return n; // beyond int range PHP gives a float: same here
  return Object.is(n, -0) ? 0 : n;
}

/** The leading number of a string, or undefined when it does not start with one ("12abc" -> 12). */
export function leadingNumber(s: string): number | undefined {
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
      return Number.isInteger(v) ? 'int' : 'float';
    default:
      return v === null ? 'null' : v instanceof PhpArray ? 'array' : (v as TwigObject).phpClass;
  }
}

/** Operand of an arithmetic operator (PHP 8: non-numeric strings and arrays are type errors). */
export function toArith(v: Value, other: Value, op: string, left: boolean): number {
  switch (typeof v) {
    case 'number':
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

/** PHP's (int) cast. */
export function toInt(v: Value): number {
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? Math.trunc(v) || 0 : 0;
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const n = leadingNumber(v);
      return n === undefined || !Number.isFinite(n) ? 0 : Math.trunc(n) || 0;
    }
    default:
      if (v === null) return 0;
      return v instanceof PhpArray ? (v.size > 0 ? 1 : 0) : 1;
  }
}

/** PHP's (float) cast. */
export function toFloat(v: Value): number {
  switch (typeof v) {
    case 'number':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    case 'string':
      return leadingNumber(v) ?? 0;
    default:
      if (v === null) return 0;
      return v instanceof PhpArray ? (v.size > 0 ? 1 : 0) : 1;
  }
}
