import { fail } from './fault.js';
import { type Key, normalizeStringKey, PhpArray } from './php-array.js';
import type { Value } from './value.js';

/** How PHP casts a value used as an array key. */
export function toKey(v: Value): Key {
  switch (typeof v) {
    case 'string':
      return normalizeStringKey(v);
    case 'number':
      return Number.isFinite(v) ? Math.trunc(v) || 0 : 0;
    case 'bigint':
      // keys stay JS numbers or strings: an int key beyond 2^53 is kept as its digits (it prints
      // the same, and a JSON key of those digits reads back as that string too)
      return String(v);
    case 'boolean':
      return v ? 1 : 0;
    default:
      if (v === null) return '';
      return fail(v instanceof PhpArray ? 'Illegal offset type' : 'Illegal offset type');
  }
}
