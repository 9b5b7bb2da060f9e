import { toStr } from '../runtime/convert.js';
import { formatDate, modify, toDate } from '../runtime/date.js';
import { formatInterval, TwigInterval } from '../runtime/date-interval.js';
import { type FilterDef, filter } from './types.js';

export const DATE_FILTERS: Readonly<Record<string, FilterDef>> = {
  date: filter(['format', 'timezone'], (st, v, a) => {
    // Twig formats a DateInterval (from date(...).diff(...)) with its own format, '%d days' by default
    if (v instanceof TwigInterval) {
      return formatInterval(st, v, a[0] === undefined || a[0] === null ? '%d days' : toStr(a[0]));
    }
    const format = a[0] === undefined || a[0] === null ? 'F j, Y H:i' : toStr(a[0]);
    return formatDate(st, toDate(st, v, a[1]), format);
  }),
  date_modify: filter(['modifier'], (st, v, a) => modify(st, toDate(st, v, false), toStr(a[0] ?? '')), {
    required: 1,
  }),
};
