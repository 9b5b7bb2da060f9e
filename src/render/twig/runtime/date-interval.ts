import { toStr } from './convert.js';
import { type Method, MethodObject } from './method-object.js';
import type { RenderState } from './state.js';
import { utcWall, type Wall, wallOf } from './strtotime.js';

/**
 * PHP's DateInterval as DateTime::diff() makes it: the difference in calendar fields, `invert` 1
 * when the argument is earlier, and `days` the whole days between. Its public properties (y, m,
 * d, h, i, s, f, invert, days) read as attributes, `format()` is DateInterval::format, and the
 * date filter formats it too (`|date('%a days')`, default '%d days').
 */
export class TwigInterval extends MethodObject {
  readonly phpClass = 'DateInterval';
  constructor(
    readonly y: number,
    readonly m: number,
    readonly d: number,
    readonly h: number,
    readonly i: number,
    readonly s: number,
    /** microseconds */
    readonly us: number,
    readonly invert: 0 | 1,
    readonly days: number,
  ) {
    super();
  }

  protected get methods(): ReadonlyMap<string, Method> {
    return new Map<string, Method>([
      ['y', () => this.y],
      ['m', () => this.m],
      ['d', () => this.d],
      ['h', () => this.h],
      ['i', () => this.i],
      ['s', () => this.s],
      ['f', () => this.us / 1e6],
      ['invert', () => this.invert],
      ['days', () => this.days],
      ['format', (st, args) => formatInterval(st, this, toStr(args[0] ?? ''))],
    ]);
  }
}

const daysInMonth = (y: number, m: number): number => new Date(utcWall(y, m + 1, 0, 0, 0, 0)).getUTCDate();

/** Carries `value` into `next` so that 0 <= value < base (timelib's do_range_limit). */
function carry(value: number, next: number, base: number): [number, number] {
  const over = Math.floor(value / base);
  return [value - over * base, next + over];
}

/** timelib_diff on wall clocks of one zone (what the date function's dates share). */
export function diffWalls(aMs: number, a: Wall, bMs: number, b: Wall): TwigInterval {
  let one = a;
  let two = b;
  let invert: 0 | 1 = 0;
  if (aMs > bMs) {
    one = b;
    two = a;
    invert = 1;
  }
  let y = two.y - one.y;
  let m = two.m - one.m;
  let d = two.d - one.d;
  let h = two.h - one.h;
  let i = two.i - one.i;
  let s = two.s - one.s;
  let us = two.us - one.us;
  [us, s] = carry(us, s, 1e6);
  [s, i] = carry(s, i, 60);
  [i, h] = carry(i, h, 60);
  [h, d] = carry(h, d, 24);
  [m, y] = carry(m, y, 12);
  // days borrowed from the months next to the later date (PHP 8.1+'s timelib)
  if (invert === 0) {
    let year = two.y;
    let month = two.m - 1;
    while (d < 0) {
      if (month < 1) {
        month += 12;
        year--;
      }
      d += daysInMonth(year, month);
      m--;
      month--;
    }
  } else {
    let year = one.y;
    let month = one.m;
    while (d < 0) {
      d += daysInMonth(year, month);
      m--;
      month++;
      if (month > 12) {
        month -= 12;
        year++;
      }
    }
  }
  [m, y] = carry(m, y, 12);
  const dayNr = (w: Wall): number => Math.round(utcWall(w.y, w.m, w.d, 0, 0, 0) / 86400000);
  const timeOf = (w: Wall): number => ((w.h * 60 + w.i) * 60 + w.s) * 1e6 + w.us;
  let days = Math.abs(dayNr(two) - dayNr(one));
  if (timeOf(two) < timeOf(one) && days > 0) days--;
  return new TwigInterval(y, m, d, h, i, s, us, invert, days);
}

/** DateTime::diff between two instants, both read on the wall clock at `offsetMs` of each. */
export function diffDates(aMs: number, aOffsetMs: number, bMs: number, bOffsetMs: number): TwigInterval {
  return diffWalls(aMs, wallOf(aMs + aOffsetMs), bMs, wallOf(bMs + bOffsetMs));
}

const pad2 = (n: number): string => (n < 0 ? `-${String(-n).padStart(2, '0')}` : String(n).padStart(2, '0'));

/** DateInterval::format. Each character is a step of the render's budget. */
export function formatInterval(st: RenderState, iv: TwigInterval, format: string): string {
  let out = '';
  for (let k = 0; k < format.length; k++) {
    st.step();
    const c = format[k]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    k++;
    if (k >= format.length) break;
    const f = format[k]!;
    switch (f) {
      case 'Y':
        out += pad2(iv.y);
        break;
      case 'y':
        out += iv.y;
        break;
      case 'M':
        out += pad2(iv.m);
        break;
      case 'm':
        out += iv.m;
        break;
      case 'D':
        out += pad2(iv.d);
        break;
      case 'd':
        out += iv.d;
        break;
      case 'H':
        out += pad2(iv.h);
        break;
      case 'h':
        out += iv.h;
        break;
      case 'I':
        out += pad2(iv.i);
        break;
      case 'i':
        out += iv.i;
        break;
      case 'S':
        out += pad2(iv.s);
        break;
      case 's':
        out += iv.s;
        break;
      case 'F':
        out += String(iv.us).padStart(6, '0');
        break;
      case 'f':
        out += iv.us;
        break;
      case 'a':
        out += iv.days;
        break;
      case 'R':
        out += iv.invert ? '-' : '+';
        break;
      case 'r':
        out += iv.invert ? '-' : '';
        break;
      case '%':
        out += '%';
        break;
      default:
        out += `%${f}`;
    }
  }
  st.checkString(out.length);
  return out;
}
