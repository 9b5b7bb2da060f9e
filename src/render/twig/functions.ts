import { isEmpty } from './filters/index.js';
import type { FunctionDef, TestDef } from './filters/types.js';
import { getAttribute } from './runtime/attribute.js';
import { charge, warn } from './runtime/budget.js';
import { compare, identical } from './runtime/compare.js';
import { toInt, toInt64, toStr } from './runtime/convert.js';
import { toDate } from './runtime/date.js';
import { fail } from './runtime/fault.js';
import { big, int64, type Num } from './runtime/int64.js';
import { mbLength, mbSubstr } from './runtime/mb.js';
import { mod, range } from './runtime/ops.js';
import { PhpArray } from './runtime/php-array.js';
import { PHP_CONSTANTS } from './runtime/php-constants.js';
import type { RenderState } from './runtime/state.js';
import type { Value } from './runtime/value.js';

function extreme(args: readonly (Value | undefined)[], sign: 1 | -1, name: string): Value {
  let items: Value[] = args.map((a) => a ?? null);
  if (items.length === 1) {
    const only = items[0];
    if (!(only instanceof PhpArray))
      return fail(`${name}(): Argument #1 ($value) must be of type array, ${typeof only} given`);
    items = only.values();
    if (items.length === 0) return fail(`${name}(): Argument #1 ($value) must contain at least one element`);
  }
  charge(items.length >> 2);
  let best = items[0]!;
  for (let i = 1; i < items.length; i++) {
    const c = compare(items[i]!, best);
    if (sign > 0 ? c > 0 : c < 0) best = items[i]!;
  }
  return best;
}

function random(st: RenderState, args: readonly (Value | undefined)[]): Value {
  const [values, maxArg] = args;
  const badRange = (): never =>
    fail('random(): Argument #2 ($max) must be greater than or equal to argument #1 ($min)');
  const randInt = (min: number, max: number): number => {
    if (max < min) return badRange();
    return min + Math.floor(st.random() * (max - min + 1));
  };
  if (values === undefined || values === null) {
    return maxArg === undefined || maxArg === null ? randInt(0, 2147483647) : randInt(0, toInt(maxArg));
  }
  if (typeof values === 'number' || typeof values === 'bigint' || typeof values === 'boolean') {
    const n = toInt64(values);
    const max = maxArg === undefined || maxArg === null ? undefined : toInt64(maxArg);
    if (typeof n === 'number' && (max === undefined || typeof max === 'number')) {
      if (max === undefined) return n < 0 ? randInt(n, 0) : randInt(0, n);
      return randInt(n, max);
    }
    // an int beyond 2^53 as a bound: drawn exactly (a double cannot hold every int in between)
    const [lo, hi] = max === undefined ? (n < 0 ? [big(n), 0n] : [0n, big(n)]) : [big(n), big(max)];
    if (hi < lo) return badRange();
    const span = hi - lo + 1n;
    const off = BigInt(Math.floor(st.random() * Number(span)));
    return int64(lo + (off < span ? off : span - 1n));
  }
  if (typeof values === 'string') {
    if (values === '') return '';
    return mbSubstr(values, randInt(0, mbLength(values) - 1), 1);
  }
  if (values instanceof PhpArray) {
    const vals = values.values();
    if (vals.length === 0) return fail('The random function cannot pick from an empty array.');
    return vals[randInt(0, vals.length - 1)]!;
  }
  return values;
}

/**
 * `constant(name)`: the PHP constants that say nothing about the host (runtime/php-constants.ts);
 * any other name fails the render as an undefined constant does in PHP. A class constant of an
 * object (`constant(name, object)`) is not there: templates have no PHP objects of their own.
 */
function constant(name: Value | undefined, object: Value | undefined): Value {
  if (object !== undefined && object !== null) {
    return fail("constant(): reading a constant of an object's class is not available in Herald");
  }
  const text = toStr(name ?? null);
  const value = PHP_CONSTANTS.get(text.startsWith('\\') ? text.slice(1) : text);
  if (value === undefined) {
    return fail(
      text.includes('::')
        ? `Undefined constant ${text} (of classes, only DateTimeInterface's formats are available)`
        : `Undefined constant "${text}"`,
    );
  }
  return value;
}

/** Every function a template may call (files and the host are out of reach by design). */
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map<string, FunctionDef>([
  [
    'range',
    {
      params: ['low', 'high', 'step'],
      required: 2,
      strictArity: true,
      fn: (st, a) => range(st, a[0] ?? null, a[1] ?? null, a[2] ?? 1),
    },
  ],
  ['max', { params: [], variadic: true, fn: (_st, a) => extreme(a, 1, 'max') }],
  ['min', { params: [], variadic: true, fn: (_st, a) => extreme(a, -1, 'min') }],
  [
    'cycle',
    {
      params: ['values', 'position'],
      required: 2,
      fn: (_st, a) => {
        const values = a[0];
        if (!(values instanceof PhpArray)) return values ?? null;
        // twig_cycle: $values[$position % count($values)], a key lookup (PHP's % keeps the sign)
        const key = mod(a[1] ?? null, values.size);
        const v = values.get(key);
        if (v === undefined) {
          warn(`Undefined array key ${key}`);
          return null;
        }
        return v;
      },
    },
  ],
  [
    'attribute',
    {
      params: ['object', 'attribute', 'arguments'],
      fn: (st, a) => {
        const args = a[2] instanceof PhpArray ? a[2].values() : [];
        return getAttribute(st, a[0] ?? null, a[1] ?? null, 'any', args);
      },
    },
  ],
  ['random', { params: ['values', 'max'], fn: random }],
  ['date', { params: ['date', 'timezone'], fn: (st, a) => toDate(st, a[0] ?? null, a[1]) }],
  ['constant', { params: ['constant', 'object'], fn: (_st, a) => constant(a[0], a[1]) }],
]);

/** Functions that exist in PHP Twig but would reach files or the host. */
export const UNAVAILABLE_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['include', 'the "include" function (no template files)'],
  ['source', 'the "source" function (no template files)'],
  ['template_from_string', 'the "template_from_string" function'],
  ['dump', 'the "dump" function'],
  ['parent', 'the "parent" function (no template inheritance)'],
]);

const _isOdd = (n: Num): boolean => (typeof n === 'number' ? n % 2 !== 0 : n % 2n !== 0n);

export const TESTS: ReadonlyMap<string, TestDef> = new Map<string, TestDef>([
  ['empty', { params: [], fn: (_st, v) => isEmpty(v) }],
  ['null', { params: [], fn: (_st, v) => v === null }],
  ['none', { params: [], fn: (_st, v) => v === null }],
  // Twig compiles these to PHP's %: `$v % 2 == 0`, `$v % 2 != 0`, `0 == $v % $num`
  ['even', { params: [], fn: (_st, v) => mod(v, 2) === 0 }],
  ['odd', { params: [], fn: (_st, v) => mod(v, 2) !== 0 }],
  ['iterable', { params: [], fn: (_st, v) => v instanceof PhpArray }],
  [
    'divisible by',
    {
      params: ['num'],
      fn: (_st, v, a) => mod(v, a[0] ?? null) === 0,
    },
  ],
  ['same as', { params: ['compare'], fn: (_st, v, a) => identical(v, a[0] ?? null) }],
  // Twig compiles `x is constant('NAME')` to `x === constant('NAME')`.
  ['constant', { params: ['constant', 'object'], fn: (_st, v, a) => identical(v, constant(a[0], a[1])) }],
]);

export const UNAVAILABLE_TESTS: ReadonlyMap<string, string> = new Map();

export { toStr };
