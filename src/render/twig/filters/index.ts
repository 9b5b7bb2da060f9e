import { toBool } from '../runtime/convert.js';
import { PhpArray } from '../runtime/php-array.js';
import type { Value } from '../runtime/value.js';
import { ARRAY_FILTERS } from './array-filters.js';
import { DATE_FILTERS } from './date-filters.js';
import { ESCAPE_FILTERS } from './escape-filters.js';
import { NUMBER_FILTERS } from './number-filters.js';
import { PLATFORM_FILTERS } from './platform-filters.js';
import { STRING_FILTERS } from './string-filters.js';
import { type FilterDef, filter } from './types.js';

/** twig_test_empty. */
export function isEmpty(v: Value): boolean {
  if (v instanceof PhpArray) return v.size === 0;
  return v === '' || v === false || v === null;
}

const MISC: Readonly<Record<string, FilterDef>> = {
  default: filter(['default'], (_st, v, a) => (isEmpty(v) ? (a[0] === undefined ? '' : a[0]) : v)),
};

/** Every filter a template may use, by name (a null-prototype map: no inherited names). */
export const FILTERS: ReadonlyMap<string, FilterDef> = new Map(
  Object.entries({
    ...STRING_FILTERS,
    ...ARRAY_FILTERS,
    ...NUMBER_FILTERS,
    ...ESCAPE_FILTERS,
    ...DATE_FILTERS,
    ...PLATFORM_FILTERS,
    ...MISC,
  }),
);

export { toBool };
