import { Arrow } from './arrow.js';
import { compare } from './compare.js';
import { toInt } from './convert.js';
import { fail } from './fault.js';
import type { RenderState } from './state.js';
import type { Value } from './value.js';

/**
 * PHP 8's stable sort with either the default `<=>` or a template arrow as comparator (uasort's
 * rules: the result is cast to int; `false` means "ask again with the operands swapped").
 */
export function phpSort<T>(
  st: RenderState,
  items: T[],
  value: (t: T) => Value,
  arrow: Value | undefined,
): T[] {
  let cmp: (a: Value, b: Value) => number;
  if (arrow === undefined || arrow === null) {
    cmp = (a, b) => compare(a, b);
  } else if (arrow instanceof Arrow) {
    cmp = (a, b) => {
      const r = arrow.call(st, [a, b]);
      if (r === false) return arrow.call(st, [b, a]) === false ? 0 : -1;
      if (r === true) return 1;
      return Math.sign(toInt(r));
    };
  } else {
    return fail('The sort filter only accepts an arrow function as comparator');
  }
  const indexed = items.map((item, i) => ({ item, i, v: value(item) }));
  indexed.sort((x, y) => {
    st.step();
    return cmp(x.v, y.v) || x.i - y.i;
  });
  return indexed.map((x) => x.item);
}
