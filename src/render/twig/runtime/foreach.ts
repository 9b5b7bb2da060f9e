import { warn } from './budget.js';
import { phpType } from './convert.js';
import { TwigInterval } from './date-interval.js';
import { ArrayBuilder, PhpArray } from './php-array.js';
import type { Value } from './value.js';

/**
 * What PHP's bare `foreach ($v as $k => $x)` walks (Twig 3.5's map, `has some`, `has every`):
 * an array as it is; an object's public properties, of which only a DateInterval has any here
 * (PHP 8.2: y, m, d, h, i, s, f, invert, days, from_string); nothing for null or a scalar, with
 * PHP's warning.
 */
export function foreachSubject(v: Value): PhpArray {
  if (v instanceof PhpArray) return v;
  const out = new ArrayBuilder();
  if (v instanceof TwigInterval) {
    const properties: ReadonlyArray<readonly [string, Value]> = [
      ['y', v.y],
      ['m', v.m],
      ['d', v.d],
      ['h', v.h],
      ['i', v.i],
      ['s', v.s],
      ['f', v.us / 1e6],
      ['invert', v.invert],
      ['days', v.days],
      ['from_string', false],
    ];
    for (const [k, x] of properties) out.set(k, x);
  } else if (typeof v !== 'object' || v === null) {
    warn(`foreach() argument must be of type array|object, ${phpType(v)} given`);
  }
  return out.build();
}
