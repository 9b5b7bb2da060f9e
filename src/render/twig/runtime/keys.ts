import { fail } from './fault.js';
import { floatToInt } from './int64.js';
import { type Key, normalizeStringKey, PhpArray } from './php-array.js';
import type { Value } from './value.js';

/** How PHP casts a value used as an array key. */
export function toKey(v: Value): Key {
  switch (typeof v) {
    case 'string':
      return normalizeStringKey(v);
    case 'number':
      return Number.isSafeInteger(v) ? v || 0 : floatToInt(v);
    case 'bigint':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    default:
      if (v === null) return '';
      return fail(v instanceof PhpArray ? 'Illegal offset type' : 'Illegal offset type');
  }
}
