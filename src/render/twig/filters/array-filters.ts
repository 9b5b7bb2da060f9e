import { Arrow } from '../runtime/arrow.js';
import { charge } from '../runtime/budget.js';
import { castStr, numberParam, toBool, toStr } from '../runtime/convert.js';
import { fail } from '../runtime/fault.js';
import { foreachSubject } from '../runtime/foreach.js';
import { jsonEncode } from '../runtime/json.js';
import { toKey } from '../runtime/keys.js';
import { Markup } from '../runtime/markup.js';
import { codePoints, mbLength, mbSubstr } from '../runtime/mb.js';
import { ArrayBuilder, type Key, PhpArray } from '../runtime/php-array.js';
import { phpSort } from '../runtime/sort.js';
import type { RenderState } from '../runtime/state.js';
import type { Value } from '../runtime/value.js';
import { type Args, type FilterDef, filter } from './types.js';

function typeName(v: Value | undefined): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isSafeInteger(v) ? 'int' : 'float';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return v instanceof PhpArray ? 'array' : 'object';
}

function arrowArg(v: Value | undefined, name: string): Arrow {
  if (v instanceof Arrow) return v;
  return fail(`The "${name}" filter only accepts an arrow function`);
}

/** array_slice semantics: string keys always kept, integer keys renumbered unless preserved. */
function arraySlice(arr: PhpArray, start: number, length: number | null, preserve: boolean): PhpArray {
  const keys = arr.keys();
  const n = keys.length;
  let from = start < 0 ? Math.max(n + start, 0) : Math.min(start, n);
  let to = length === null ? n : length < 0 ? n + length : from + length;
  to = Math.min(Math.max(to, from), n);
  from = Math.trunc(from);
  const out = new ArrayBuilder();
  for (let i = from; i < to; i++) {
    const k = keys[i]!;
    const v = arr.get(k)!;
    if (typeof k !== 'string' && !preserve) out.push(v);
    else out.set(k, v);
  }
  return out.build();
}

export function slice(
  v: Value,
  startV: Value | undefined,
  lengthV: Value | undefined,
  preserveV?: Value,
): Value {
  if (
    typeof v === 'string' &&
    typeof startV === 'number' &&
    Number.isSafeInteger(startV) &&
    (lengthV === undefined ||
      lengthV === null ||
      (typeof lengthV === 'number' && Number.isSafeInteger(lengthV)))
  ) {
    // a string and int bounds (`id[:8]`): what numberParam would hand mb_substr
    return mbSubstr(v, startV, lengthV ?? null);
  }
  // array_slice($v, $start, $length) or mb_substr($v, $start, $length): int parameters
  const [fn, startName] = v instanceof PhpArray ? ['array_slice', 'offset'] : ['mb_substr', 'start'];
  const start = numberParam(startV ?? 0, fn, 2, startName);
  const length = lengthV === undefined || lengthV === null ? null : numberParam(lengthV, fn, 3, 'length');
  if (v instanceof PhpArray) return arraySlice(v, start, length, toBool(preserveV ?? false));
  if (v === null) return '';
  if (typeof v === 'object' && !(v instanceof Markup)) return fail('slice: unsupported value');
  return mbSubstr(toStr(v), start, length);
}

// an empty array's first is false (PHP's current()); a null element is null
function first(v: Value): Value {
  if (v instanceof PhpArray) return v.size === 0 ? false : (v.firstValue() as Value);
  return slice(v, 0, 1);
}

function last(v: Value): Value {
  if (v instanceof PhpArray) return v.size === 0 ? false : (v.lastValue() as Value);
  return slice(v, -1, 1);
}

export function length(v: Value): number {
  if (v === null) return 0;
  if (v instanceof PhpArray) return v.size;
  if (typeof v === 'object' && !(v instanceof Markup)) return 1;
  return mbLength(toStr(v));
}

/** `strs.join(glue)`: a few pieces are concatenated (V8 11.3's join costs more than the pieces). */
function joinStrings(strs: readonly string[], glue: string): string {
  if (strs.length > 16) return strs.join(glue);
  let out = strs[0]!;
  for (let i = 1; i < strs.length; i++) out += glue + strs[i]!;
  return out;
}

function join(st: RenderState, v: Value, a: Args): Value {
  const glue = a[0] === undefined || a[0] === null ? '' : toStr(a[0]);
  const and = a[1] === undefined || a[1] === null ? null : toStr(a[1]);
  let items: Value[];
  if (v instanceof PhpArray) items = v.values();
  else if (v === null) items = [];
  else items = [v];
  st.step(items.length);
  if (items.length === 0) return '';
  const strs = items.map(castStr);
  let total = glue.length * strs.length;
  for (const s of strs) total += s.length;
  st.checkString(total);
  if (and === null || and === glue) return joinStrings(strs, glue);
  if (strs.length === 1) return items[0]!;
  return strs.slice(0, -1).join(glue) + and + strs[strs.length - 1];
}

function merge(st: RenderState, v: Value, a: Args): Value {
  const other = a[0];
  if (!(v instanceof PhpArray)) {
    return fail(
      `The merge filter only works with arrays or "Traversable", got "${typeName(v)}" as first argument.`,
    );
  }
  if (!(other instanceof PhpArray)) {
    return fail(
      `The merge filter only works with arrays or "Traversable", got "${typeName(other)}" as second argument.`,
    );
  }
  st.checkArray(v.size + other.size);
  const a0 = v.listValues();
  const b0 = a0 === undefined ? undefined : other.listValues();
  if (a0 !== undefined && b0 !== undefined) {
    // two lists: the second's values follow the first's (charged as forEach charges them);
    // listValues hands out a fresh array
    charge((a0.length >> 3) + (b0.length >> 3));
    for (let i = 0; i < b0.length; i++) a0.push(b0[i]!);
    return PhpArray.list(a0);
  }
  const out = new ArrayBuilder();
  const add = (val: Value, k: Key): void => {
    if (typeof k !== 'string') out.push(val);
    else out.set(k, val);
  };
  v.forEach(add);
  other.forEach(add);
  return out.build();
}

function batch(st: RenderState, v: Value, a: Args): Value {
  const arr = v instanceof PhpArray ? v : fail('The batch filter only works with arrays');
  const size = Math.ceil(numberParam(a[0] ?? null, 'ceil', 1, 'num', false));
  if (!(size >= 1)) return fail('array_chunk(): Argument #2 ($length) must be greater than 0');
  const fill = a[1] === undefined ? null : a[1];
  const preserve = a[2] === undefined ? true : toBool(a[2]);
  if (fill !== null) st.checkArray(size);
  st.step(arr.size);
  const rows: ArrayBuilder[] = [];
  let row: ArrayBuilder | undefined;
  arr.forEach((val, k) => {
    if (!row || row.count >= size) {
      row = new ArrayBuilder();
      rows.push(row);
    }
    if (preserve) row.set(k, val);
    else row.push(val);
  });
  if (fill !== null && row) {
    const missing = size - row.count;
    for (let i = 0; i < missing; i++) row.push(fill);
  }
  return PhpArray.list(rows.map((r) => r.build()));
}

function column(st: RenderState, v: Value, a: Args): Value {
  const arr = v instanceof PhpArray ? v : fail('The column filter only works with arrays');
  const col = a[0] ?? null;
  const idx = a[1] === undefined ? null : a[1];
  st.step(arr.size);
  const out = new ArrayBuilder();
  arr.forEach((row) => {
    if (!(row instanceof PhpArray)) return;
    let val: Value | undefined;
    if (col === null) val = row;
    else val = row.get(toKey(col));
    if (val === undefined) return;
    const ik = idx === null ? undefined : row.get(toKey(idx));
    // as array_column's keys: null is "", a bool 0 or 1, a float truncated, an array refused
    if (ik !== undefined) out.set(toKey(ik), val);
    else out.push(val);
  });
  return out.build();
}

function keys(v: Value): Value {
  if (!(v instanceof PhpArray)) return PhpArray.EMPTY;
  return PhpArray.list(v.keys());
}

function reverse(st: RenderState, v: Value, a: Args): Value {
  if (v instanceof PhpArray) {
    st.step(v.size);
    const preserve = toBool(a[0] ?? false);
    const ks = v.keys();
    const out = new ArrayBuilder();
    for (let i = ks.length - 1; i >= 0; i--) {
      const k = ks[i]!;
      if (typeof k !== 'string' && !preserve) out.push(v.get(k)!);
      else out.set(k, v.get(k)!);
    }
    return out.build();
  }
  if (v === null) return '';
  return codePoints(toStr(v)).reverse().join('');
}

function map(st: RenderState, v: Value, a: Args): Value {
  const fn = arrowArg(a[0], 'map');
  // Twig 3.5's map is a bare foreach: null or a scalar warns and maps to an empty array, a
  // DateInterval maps its public properties
  const out = new ArrayBuilder();
  foreachSubject(v).forEach((val, k) => {
    st.step();
    out.set(k, fn.call(st, [val, k]));
  });
  return out.build();
}

function filterFn(st: RenderState, v: Value, a: Args): Value {
  const fn = arrowArg(a[0], 'filter');
  if (!(v instanceof PhpArray)) return fail('The "filter" filter expects an array');
  const out = new ArrayBuilder();
  v.forEach((val, k) => {
    st.step();
    if (toBool(fn.call(st, [val, k]))) out.set(k, val);
  });
  return out.build();
}

function reduce(st: RenderState, v: Value, a: Args): Value {
  const fn = arrowArg(a[0], 'reduce');
  if (!(v instanceof PhpArray)) return fail('The "reduce" filter only works with arrays');
  let acc: Value = a[1] === undefined ? null : a[1];
  v.forEach((val, k) => {
    st.step();
    acc = fn.call(st, [acc, val, k]);
  });
  return acc;
}

function sort(st: RenderState, v: Value, a: Args): Value {
  if (!(v instanceof PhpArray)) {
    return fail(`The sort filter only works with arrays or "Traversable", got "${typeName(v)}".`);
  }
  const ks = v.keys();
  const sorted = phpSort(st, ks, (k) => v.get(k)!, a[0]);
  const out = new ArrayBuilder();
  for (const k of sorted) out.set(k, v.get(k)!);
  return out.build();
}

export const ARRAY_FILTERS: Readonly<Record<string, FilterDef>> = {
  length: filter([], (_st, v) => length(v)),
  first: filter([], (_st, v) => first(v)),
  last: filter([], (_st, v) => last(v)),
  join: filter(['glue', 'and'], join),
  merge: filter(['arr2'], merge, { required: 1 }),
  batch: filter(['size', 'fill', 'preserve_keys'], batch, { required: 1 }),
  column: filter(['name', 'index'], column, { required: 1 }),
  keys: filter([], (_st, v) => keys(v)),
  reverse: filter(['preserve_keys'], reverse),
  slice: filter(['start', 'length', 'preserve_keys'], (_st, v, a) => slice(v, a[0], a[1], a[2]), {
    required: 1,
  }),
  map: filter(['arrow'], map, { required: 1 }),
  filter: filter(['arrow'], filterFn, { required: 1 }),
  reduce: filter(['arrow', 'initial'], reduce, { required: 1 }),
  sort: filter(['arrow'], sort),
  json_encode: filter(
    ['flags', 'depth'],
    (st, v, a) => jsonEncode(st, v, numberParam(a[0] ?? 0, 'json_encode', 2, 'flags')),
    {
      strict: true,
    },
  ),
};
