import { toStr } from './convert.js';
import { fail } from './fault.js';
import { type Method, MethodObject } from './method-object.js';
import type { RenderState } from './state.js';
import type { Value } from './value.js';

/** A point in time with the timezone it is shown in (PHP's DateTime, as the date filters use it). */
export class TwigDate extends MethodObject {
  readonly phpClass = 'DateTime';
  constructor(
    /** ms since the epoch */
    readonly ms: number,
    /** IANA name, "UTC" or a fixed offset like "+08:00" */
    readonly tz: string,
  ) {
    super();
  }

  /** Built on first use: most dates are only formatted by the date filter. */
  protected get methods(): ReadonlyMap<string, Method> {
    return new Map<string, Method>([
      ['gettimestamp', () => Math.floor(this.ms / 1000)],
      ['format', (st, args) => formatDate(st, this, toStr(args[0] ?? ''))],
      ['getoffset', () => offsetMinutes(this.ms, this.tz) * 60],
    ]);
  }
  compareKey(): number {
    return this.ms;
  }
}

const OFFSET_RE = /^([+-])(\d{2}):?(\d{2})$/;
const dtfCache = new Map<string, Intl.DateTimeFormat>();

/** Validates a timezone name the way DateTimeZone's constructor would (roughly). */
export function checkTimezone(tz: string): string {
  if (tz === 'UTC' || OFFSET_RE.test(tz)) return tz;
  if (/^utc$/i.test(tz) || tz === 'Z') return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    return fail(`DateTimeZone::__construct(): Unknown or bad timezone (${tz})`);
  }
}

/** Offset from UTC in minutes at the instant `ms`. */
export function offsetMinutes(ms: number, tz: string): number {
  if (tz === 'UTC') return 0;
  const fixed = OFFSET_RE.exec(tz);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]));
  let dtf = dtfCache.get(tz);
  if (!dtf) {
    dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    dtfCache.set(tz, dtf);
  }
  const parts: Record<string, number> = {};
  for (const p of dtf.formatToParts(new Date(Math.floor(ms / 1000) * 1000))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const asUtc = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60000);
}

/** ms for a wall-clock time in a timezone. */
function wallToMs(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  frac: number,
  tz: string,
): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s) + frac;
  const off1 = offsetMinutes(guess, tz);
  const off2 = offsetMinutes(guess - off1 * 60000, tz);
  return guess - off2 * 60000;
}

/** ISO date strings seen recently (webhook timestamps repeat across renders): string -> instant. */
const parsedCache = new Map<string, { ms: number; tz: string }>();
const PARSED_CACHE_MAX = 2048;

const ISO =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/i;
const UNITS: Record<string, number> = {
  sec: 1,
  second: 1,
  min: 60,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 604800,
  fortnight: 1209600,
};

const DAY_OF_MONTH = /(first|last) day of (this|next|last|previous) month\s*/y;
const DAY_WORD = /(now|today|midnight|tomorrow|yesterday|noon)\b\s*/y;
const RELATIVE = /([+-]?\s*\d+)\s*(sec|second|min|minute|hour|day|week|fortnight|month|year)s?\b\s*/y;

/** The sticky `re` matched at `at` in `text`, or null. */
function matchAt(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/**
 * Applies "+1 day", "-2 hours", "tomorrow", "midnight" style modifiers (a subset of PHP's). The
 * modifier is the template's to choose: each of its terms is a step of the render's budget.
 */
export function modify(st: RenderState, base: TwigDate, text: string): TwigDate {
  let ms = base.ms;
  const rest = text.trim().toLowerCase();
  const startOfDay = (t: number): number => {
    const off = offsetMinutes(t, base.tz) * 60000;
    return Math.floor((t + off) / 86400000) * 86400000 - off;
  };
  let at = 0;
  while (at < rest.length) {
    st.step();
    const dayOf = matchAt(DAY_OF_MONTH, rest, at);
    if (dayOf) {
      const off = offsetMinutes(ms, base.tz) * 60000;
      const d = new Date(ms + off);
      const shift = dayOf[2] === 'next' ? 1 : dayOf[2] === 'this' ? 0 : -1;
      const month = d.getUTCMonth() + shift + (dayOf[1] === 'last' ? 1 : 0);
      const day = dayOf[1] === 'first' ? 1 : 0;
      ms =
        Date.UTC(d.getUTCFullYear(), month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()) - off;
      at += dayOf[0].length;
      continue;
    }
    const word = matchAt(DAY_WORD, rest, at);
    const rel = word ? null : matchAt(RELATIVE, rest, at);
    if (word) {
      const w = word[1]!;
      if (w === 'today' || w === 'midnight') ms = startOfDay(ms);
      else if (w === 'tomorrow') ms = startOfDay(ms) + 86400000;
      else if (w === 'yesterday') ms = startOfDay(ms) - 86400000;
      else if (w === 'noon') ms = startOfDay(ms) + 43200000;
      at += word[0].length;
    } else if (rel) {
      const n = Number(rel[1]!.replace(/\s+/g, ''));
      const unit = rel[2]!;
      if (unit === 'month' || unit === 'year') {
        const off = offsetMinutes(ms, base.tz) * 60000;
        const d = new Date(ms + off);
        if (unit === 'month') d.setUTCMonth(d.getUTCMonth() + n);
        else d.setUTCFullYear(d.getUTCFullYear() + n);
        ms = d.getTime() - off;
      } else ms += n * UNITS[unit]! * 1000;
      at += rel[0].length;
    } else {
      return fail(`DateTime::modify(): Failed to parse time string (${text})`);
    }
  }
  return new TwigDate(ms, base.tz);
}

/** Twig's twig_date_converter: DateTime, timestamp, null (now) or a date string. */
export function toDate(st: RenderState, v: Value, timezone: Value | undefined): TwigDate {
  const keepTz = timezone === false;
  const tz =
    timezone === undefined || timezone === null || timezone === false
      ? st.timezone
      : checkTimezone(toStr(timezone));
  if (v instanceof TwigDate) return keepTz ? v : new TwigDate(v.ms, tz);
  if (v === null || v === undefined) return new TwigDate(st.now, tz);
  if ((typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v))) {
    return new TwigDate(Number(v) * 1000, tz);
  }
  // PHP hands "1700000000.5" to DateTime's parser, which reads it as something else entirely
  if (typeof v === 'number') return fail(`Failed to parse time string (${toStr(v)})`);
  const s = toStr(v).trim();
  if (s === '' || /^now$/i.test(s)) return new TwigDate(st.now, tz);
  const at = /^@(-?\d+(?:\.\d+)?)$/.exec(s);
  if (at) return new TwigDate(Number(at[1]) * 1000, keepTz ? '+00:00' : tz);
  const cacheKey = `${st.timezone}|${s}`;
  const cached = parsedCache.get(cacheKey);
  if (cached !== undefined) return new TwigDate(cached.ms, keepTz ? cached.tz : tz);
  const m = ISO.exec(s);
  if (m) {
    const zone = m[8];
    let srcTz = st.timezone;
    if (zone)
      srcTz = /^(z|utc|gmt)$/i.test(zone)
        ? 'UTC'
        : zone.length === 5
          ? `${zone.slice(0, 3)}:${zone.slice(3)}`
          : zone;
    const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
    const ms = wallToMs(
      Number(m[1]),
      Number(m[2]),
      Number(m[3]),
      Number(m[4] ?? 0),
      Number(m[5] ?? 0),
      Number(m[6] ?? 0),
      frac,
      srcTz,
    );
    if (parsedCache.size >= PARSED_CACHE_MAX) parsedCache.clear();
    parsedCache.set(cacheKey, { ms, tz: srcTz });
    return new TwigDate(ms, keepTz ? srcTz : tz);
  }
  const rel =
    /^[+-]?\d+\s*(sec|second|min|minute|hour|day|week|fortnight|month|year)s?\b|^(today|tomorrow|yesterday|midnight|noon)\b|^(first|last) day of/i.test(
      s,
    );
  if (rel) return modify(st, new TwigDate(st.now, tz), s);
  // Other formats ("15 Jan 2024", "01/15/2024"): read the wall clock as UTC, then place it in the
  // default timezone, never in the host's local zone.
  const asUtc = Date.parse(`${s} UTC`);
  if (!Number.isNaN(asUtc)) {
    const d = new Date(asUtc);
    const ms = wallToMs(
      d.getUTCFullYear(),
      d.getUTCMonth() + 1,
      d.getUTCDate(),
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
      st.timezone,
    );
    return new TwigDate(ms, tz);
  }
  const parsed = Date.parse(s);
  if (!Number.isNaN(parsed)) return new TwigDate(parsed, tz);
  return fail(`Failed to parse time string (${s})`);
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const p2 = (n: number): string => String(n).padStart(2, '0');

function isoWeek(y: number, m: number, d: number): { week: number; year: number } {
  const date = new Date(Date.UTC(y, m - 1, d));
  const dow = date.getUTCDay() || 7;
  date.setUTCDate(date.getUTCDate() + 4 - dow);
  const yearStart = Date.UTC(date.getUTCFullYear(), 0, 1);
  return { week: Math.ceil(((date.getTime() - yearStart) / 86400000 + 1) / 7), year: date.getUTCFullYear() };
}

function offsetString(min: number, colon: boolean): string {
  const sign = min < 0 ? '-' : '+';
  const a = Math.abs(min);
  return `${sign}${p2(Math.floor(a / 60))}${colon ? ':' : ''}${p2(a % 60)}`;
}

/** How many format characters formatDate reads between looks at the length of its output. */
const FORMAT_CHECK_EVERY = 1024;

/**
 * PHP's date() format characters. The format is the template's to choose, so each character is
 * a step of the render's budget and the output's length is checked as it grows: a format of a
 * million `T`s or `e`s ends in a TemplateLimitError, not in seconds of work or a 30 MB string.
 */
export function formatDate(st: RenderState, d: TwigDate, format: string): string {
  const off = offsetMinutes(d.ms, d.tz);
  const local = new Date(Math.floor(d.ms / 1000) * 1000 + off * 60000);
  const micros = Math.round((d.ms - Math.floor(d.ms / 1000) * 1000) * 1000);
  const Y = local.getUTCFullYear();
  const n = local.getUTCMonth() + 1;
  const j = local.getUTCDate();
  const G = local.getUTCHours();
  const i = local.getUTCMinutes();
  const s = local.getUTCSeconds();
  const w = local.getUTCDay();
  const leap = (Y % 4 === 0 && Y % 100 !== 0) || Y % 400 === 0;
  // The zone's abbreviation can take an Intl call: worked out once, on first use.
  let abbr: string | undefined;
  let out = '';
  for (let k = 0; k < format.length; k++) {
    st.step();
    if (k % FORMAT_CHECK_EVERY === FORMAT_CHECK_EVERY - 1) st.checkString(out.length);
    const c = format[k]!;
    switch (c) {
      case 'd':
        out += p2(j);
        break;
      case 'D':
        out += DAYS[w]!.slice(0, 3);
        break;
      case 'j':
        out += j;
        break;
      case 'l':
        out += DAYS[w];
        break;
      case 'N':
        out += w === 0 ? 7 : w;
        break;
      case 'S':
        out +=
          j % 10 === 1 && j !== 11
            ? 'st'
            : j % 10 === 2 && j !== 12
              ? 'nd'
              : j % 10 === 3 && j !== 13
                ? 'rd'
                : 'th';
        break;
      case 'w':
        out += w;
        break;
      case 'z':
        out += Math.round((Date.UTC(Y, n - 1, j) - Date.UTC(Y, 0, 1)) / 86400000);
        break;
      case 'W':
        out += p2(isoWeek(Y, n, j).week);
        break;
      case 'o':
        out += isoWeek(Y, n, j).year;
        break;
      case 'F':
        out += MONTHS[n - 1];
        break;
      case 'M':
        out += MONTHS[n - 1]!.slice(0, 3);
        break;
      case 'm':
        out += p2(n);
        break;
      case 'n':
        out += n;
        break;
      case 't':
        out += new Date(Date.UTC(Y, n, 0)).getUTCDate();
        break;
      case 'L':
        out += leap ? '1' : '0';
        break;
      case 'Y':
        out += Y < 0 ? `-${String(-Y).padStart(4, '0')}` : String(Y).padStart(4, '0');
        break;
      case 'y':
        out += p2(Y % 100);
        break;
      case 'a':
        out += G < 12 ? 'am' : 'pm';
        break;
      case 'A':
        out += G < 12 ? 'AM' : 'PM';
        break;
      case 'B': {
        const beat = Math.floor(((((d.ms / 1000 + 3600) % 86400) + 86400) % 86400) / 86.4);
        out += String(beat).padStart(3, '0');
        break;
      }
      case 'g':
        out += G % 12 || 12;
        break;
      case 'G':
        out += G;
        break;
      case 'h':
        out += p2(G % 12 || 12);
        break;
      case 'H':
        out += p2(G);
        break;
      case 'i':
        out += p2(i);
        break;
      case 's':
        out += p2(s);
        break;
      case 'u':
        out += String(micros).padStart(6, '0');
        break;
      case 'v':
        out += String(Math.floor(micros / 1000)).padStart(3, '0');
        break;
      case 'e':
        out += d.tz;
        break;
      case 'I':
        out +=
          d.tz === 'UTC' || OFFSET_RE.test(d.tz)
            ? '0'
            : offsetMinutes(d.ms, d.tz) !== offsetMinutes(Date.UTC(Y, 0, 1), d.tz)
              ? '1'
              : '0';
        break;
      case 'O':
        out += offsetString(off, false);
        break;
      case 'P':
        out += offsetString(off, true);
        break;
      case 'p':
        out += off === 0 ? 'Z' : offsetString(off, true);
        break;
      case 'T':
        abbr ??= d.tz === 'UTC' ? 'UTC' : OFFSET_RE.test(d.tz) ? offsetString(off, true) : tzAbbr(d);
        out += abbr;
        break;
      case 'Z':
        out += off * 60;
        break;
      case 'c':
        out += formatDate(st, d, 'Y-m-d\\TH:i:sP');
        break;
      case 'r':
        out += formatDate(st, d, 'D, d M Y H:i:s O');
        break;
      case 'U':
        out += Math.floor(d.ms / 1000);
        break;
      case '\\':
        k++;
        if (k < format.length) out += format[k];
        break;
      default:
        out += c;
    }
  }
  st.checkString(out.length);
  return out;
}

/** tzdata abbreviations PHP prints for common zones (Intl has no reliable source for them). */
const ABBR: Readonly<Record<string, readonly [string, string]>> = {
  'Asia/Shanghai': ['CST', 'CDT'],
  'Asia/Chongqing': ['CST', 'CDT'],
  'Asia/Harbin': ['CST', 'CDT'],
  'Asia/Taipei': ['CST', 'CDT'],
  'Asia/Macau': ['CST', 'CDT'],
  PRC: ['CST', 'CDT'],
  'Asia/Hong_Kong': ['HKT', 'HKST'],
  'Asia/Tokyo': ['JST', 'JDT'],
  'Asia/Seoul': ['KST', 'KDT'],
  'Asia/Kolkata': ['IST', 'IST'],
  'Asia/Calcutta': ['IST', 'IST'],
  'Asia/Jerusalem': ['IST', 'IDT'],
  'Asia/Manila': ['PST', 'PDT'],
  'Asia/Jakarta': ['WIB', 'WIB'],
  'Asia/Karachi': ['PKT', 'PKST'],
  'Europe/London': ['GMT', 'BST'],
  'Europe/Dublin': ['GMT', 'IST'],
  'Europe/Lisbon': ['WET', 'WEST'],
  'Europe/Moscow': ['MSK', 'MSD'],
  'Africa/Johannesburg': ['SAST', 'SAST'],
  'Australia/Sydney': ['AEST', 'AEDT'],
  'Australia/Melbourne': ['AEST', 'AEDT'],
  'Australia/Brisbane': ['AEST', 'AEDT'],
  'Australia/Perth': ['AWST', 'AWDT'],
  'Australia/Adelaide': ['ACST', 'ACDT'],
  'Pacific/Auckland': ['NZST', 'NZDT'],
  'Pacific/Honolulu': ['HST', 'HDT'],
  GMT: ['GMT', 'GMT'],
};
const CET =
  /^Europe\/(Paris|Berlin|Madrid|Rome|Amsterdam|Brussels|Vienna|Zurich|Stockholm|Oslo|Copenhagen|Warsaw|Prague|Budapest|Belgrade|Luxembourg|Monaco|Malta|Andorra|Bratislava|Ljubljana|Zagreb|Sarajevo|Skopje|Tirane|Vaduz|San_Marino|Vatican|Gibraltar|Podgorica)$/;
const EET = /^Europe\/(Athens|Bucharest|Helsinki|Kiev|Kyiv|Riga|Sofia|Tallinn|Vilnius|Chisinau)$/;

function tzAbbr(d: TwigDate): string {
  const off = offsetMinutes(d.ms, d.tz);
  const jan = offsetMinutes(Date.UTC(new Date(d.ms).getUTCFullYear(), 0, 1), d.tz);
  const jul = offsetMinutes(Date.UTC(new Date(d.ms).getUTCFullYear(), 6, 1), d.tz);
  const dst = off !== Math.min(jan, jul) && jan !== jul ? 1 : 0;
  const table =
    ABBR[d.tz] ?? (CET.test(d.tz) ? ['CET', 'CEST'] : EET.test(d.tz) ? ['EET', 'EEST'] : undefined);
  if (table) return table[dst]!;
  if (d.tz.startsWith('America/') || d.tz.startsWith('US/')) {
    const name = new Intl.DateTimeFormat('en-US', { timeZone: d.tz, timeZoneName: 'short' })
      .formatToParts(new Date(d.ms))
      .find((p) => p.type === 'timeZoneName')?.value;
    if (name && !/^GMT/.test(name)) return name;
  }
  // zones without an abbreviation print as "+08" or "+0530"
  const a = Math.abs(off);
  return `${off < 0 ? '-' : '+'}${p2(Math.floor(a / 60))}${a % 60 ? p2(a % 60) : ''}`;
}
