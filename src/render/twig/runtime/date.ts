import { warn } from './budget.js';
import { toInt, toStr } from './convert.js';
import { diffDates, TwigInterval } from './date-interval.js';
import { fail } from './fault.js';
import { type Method, MethodObject } from './method-object.js';
import type { RenderState } from './state.js';
import {
  applyRelative,
  DateParseError,
  describeParseError,
  fillHoles,
  isTimestamp,
  overlay,
  type ParsedTime,
  type ParsedZone,
  parseDateString,
  utcWall,
  type Wall,
  wallOf,
} from './strtotime.js';
import { TZ_ABBREVIATIONS } from './tz-abbreviations.js';
import type { Value } from './value.js';

/** A zone abbreviation a date string named ("EST", "CEST"): PHP shows it with `e` and `T`. */
export interface ZoneAbbr {
  readonly name: string;
  readonly dst: boolean;
}

/** A point in time with the timezone it is shown in (PHP's DateTime, as the date filters use it). */
export class TwigDate extends MethodObject {
  readonly phpClass = 'DateTime';
  constructor(
    /** ms since the epoch (changed only by the modify method, as PHP's DateTime is) */
    public ms: number,
    /** IANA name, "UTC" or a fixed offset like "+08:00" */
    public tz: string,
    /** Set when a date string named its zone by abbreviation; `tz` is then its offset. */
    public abbr?: ZoneAbbr,
  ) {
    super();
  }

  /** Built on first use: most dates are only formatted by the date filter. */
  protected get methods(): ReadonlyMap<string, Method> {
    return new Map<string, Method>([
      ['gettimestamp', () => Math.floor(this.ms / 1000)],
      ['format', (st, args) => formatDate(st, this, toStr(args[0] ?? ''))],
      ['getoffset', () => offsetMinutes(this.ms, this.tz) * 60],
      ['diff', (_st, args) => this.diff(args[0], args[1])],
      // PHP's modify changes the DateTime in place and answers it (the date_modify filter works
      // on a copy, as Twig's converter clones)
      ['modify', (st, args) => this.modifyInPlace(modify(st, this, toStr(args[0] ?? '')))],
      // the setters change the DateTime in place and answer it, as PHP's do; fields past their
      // range carry over (setTime(25, 0) is 01:00 the next day)
      ['settime', (_st, args) => this.setWall(null, args)],
      ['setdate', (_st, args) => this.setWall(args, null)],
      ['settimestamp', (_st, args) => this.moveTo(toInt(args[0] ?? null) * 1000)],
      ['gettimezone', () => new TwigTimezone(this.zoneName())],
    ]);
  }

  /** Names Twig finds in the object's array cast but PHP has no property for: read, they warn. */
  override pseudoProperty(name: string): boolean {
    return name === 'date' || name === 'timezone' || name === 'timezone_type';
  }

  /** DateTimeZone::getName: the abbreviation a date string named, an offset, or the zone's id. */
  zoneName(): string {
    return this.abbr?.name ?? this.tz;
  }

  /** 3 for a zone id, 2 for an abbreviation, 1 for an offset (json_encode and var_dump show it). */
  zoneType(): 1 | 2 | 3 {
    return this.abbr ? 2 : OFFSET_RE.test(this.tz) ? 1 : 3;
  }

  private setWall(date: readonly Value[] | null, time: readonly Value[] | null): TwigDate {
    const w = wallIn(this.ms, this.tz);
    const n = (v: Value | undefined, dflt: number): number => (v === undefined ? dflt : toInt(v));
    const [y, m, d] = date ? [n(date[0], w.y), n(date[1], w.m), n(date[2], w.d)] : [w.y, w.m, w.d];
    const [h, i, sec, us] = time
      ? [n(time[0], w.h), n(time[1], w.i), n(time[2], 0), n(time[3], 0)]
      : [w.h, w.i, w.s, w.us];
    const hint = offsetMinutes(this.ms, this.tz);
    return this.moveTo(fromWall(utcWall(y, m, d, h, i, sec) + us / 1000, this.tz, hint));
  }

  private moveTo(ms: number): TwigDate {
    if (!(Math.abs(ms) <= 8.64e15)) return fail('The date is out of the supported date range');
    this.ms = ms;
    return this;
  }
  private modifyInPlace(to: TwigDate | false): TwigDate | false {
    if (to === false) return false;
    this.ms = to.ms;
    this.tz = to.tz;
    this.abbr = to.abbr;
    return this;
  }
  private diff(other: Value | undefined, absolute: Value | undefined) {
    if (!(other instanceof TwigDate)) {
      return fail('DateTime::diff(): Argument #1 ($targetObject) must be of type DateTimeInterface');
    }
    const iv = diffDates(
      this.ms,
      offsetMinutes(this.ms, this.tz) * 60000,
      other.ms,
      offsetMinutes(other.ms, other.tz) * 60000,
    );
    if (absolute === true && iv.invert) {
      return new TwigInterval(iv.y, iv.m, iv.d, iv.h, iv.i, iv.s, iv.us, 0, iv.days);
    }
    return iv;
  }
  compareKey(): number {
    return this.ms;
  }
}

const OFFSET_RE = /^([+-])(\d{2}):?(\d{2})$/;
const dtfCache = new Map<string, Intl.DateTimeFormat>();
/** Zone names differ only in case and spelling: past this many, the cache starts afresh. */
const DTF_CACHE_MAX = 1024;

/** The formatter that reads wall clocks in `tz` (throws RangeError for an unknown zone). */
function zoneFormat(tz: string): Intl.DateTimeFormat {
  let dtf = dtfCache.get(tz);
  if (dtf === undefined) {
    dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    if (dtfCache.size >= DTF_CACHE_MAX) dtfCache.clear();
    dtfCache.set(tz, dtf);
  }
  return dtf;
}

/** Validates a timezone name the way DateTimeZone's constructor would (roughly). */
export function checkTimezone(tz: string): string {
  if (tz === 'UTC' || OFFSET_RE.test(tz)) return tz;
  if (/^utc$/i.test(tz) || tz === 'Z') return 'UTC';
  try {
    zoneFormat(tz);
    return tz;
  } catch {
    return fail(`DateTimeZone::__construct(): Unknown or bad timezone (${tz})`);
  }
}

/** PHP's DateTimeZone as DateTime::getTimezone answers it: a name, and nothing to change. */
export class TwigTimezone extends MethodObject {
  readonly phpClass = 'DateTimeZone';
  constructor(readonly name: string) {
    super();
  }
  protected get methods(): ReadonlyMap<string, Method> {
    return new Map<string, Method>([['getname', () => this.name]]);
  }
}

const HOUR_MS = 3_600_000;
/** Per zone, the offset of each hour it holds throughout (a zone changes offset a few times a year). */
const hourOffsets = new Map<string, Map<number, number>>();
/** Hours kept over every zone; past it the cache starts afresh (a Map entry is some 50-80 bytes). */
const HOUR_OFFSETS_MAX = 65_536;
let hourOffsetCount = 0;

/** Offset from UTC in minutes at the instant `ms`. */
export function offsetMinutes(ms: number, tz: string): number {
  if (tz === 'UTC') return 0;
  const fixed = OFFSET_RE.exec(tz);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]));
  const hour = Math.floor(ms / HOUR_MS);
  let hours = hourOffsets.get(tz);
  const known = hours?.get(hour);
  if (known !== undefined) return known;
  // An hour whose first and last second have one offset has it throughout: no zone changes twice
  // within an hour (tzdata's closest changes are days apart). One with a change in it is read
  // from ICU at the instant, every time.
  const start = hour * HOUR_MS;
  const first = exactOffset(start, tz);
  if (exactOffset(start + HOUR_MS - 1000, tz) !== first) return exactOffset(ms, tz);
  if (hourOffsetCount >= HOUR_OFFSETS_MAX) {
    hourOffsets.clear();
    hourOffsetCount = 0;
    hours = undefined;
  }
  if (hours === undefined) {
    hours = new Map();
    hourOffsets.set(tz, hours);
  }
  hours.set(hour, first);
  hourOffsetCount++;
  return first;
}

/** The offset at `ms` as the zone's formatter reads it. */
function exactOffset(ms: number, tz: string): number {
  const at = Math.floor(ms / 1000) * 1000;
  let year = 0;
  let bc = false;
  const wall = new Date(0);
  let month = 0;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const p of zoneFormat(tz).formatToParts(new Date(at))) {
    switch (p.type) {
      case 'era':
        bc = p.value === 'BC' || p.value === 'B';
        break;
      case 'year':
        year = Number(p.value);
        break;
      case 'month':
        month = Number(p.value) - 1;
        break;
      case 'day':
        day = Number(p.value);
        break;
      case 'hour':
        hour = Number(p.value);
        break;
      case 'minute':
        minute = Number(p.value);
        break;
      case 'second':
        second = Number(p.value);
        break;
    }
  }
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0-99 as 1900-1999. ICU counts years
  // before 1 as eras (1 BC is year 0).
  wall.setUTCFullYear(bc ? 1 - year : year, month, day);
  wall.setUTCHours(hour, minute, second, 0);
  return Math.round((wall.getTime() - at) / 60000);
}

/**
 * ms since the epoch of a wall-clock time (ms read as UTC, fraction kept) in a timezone, resolved
 * as PHP's timelib does: a time a DST change skips moves forward by the change (02:30 is 03:30
 * EDT); a time it repeats is the one `hint` (the changed date's offset, minutes) is in, else the
 * first in zones west of UTC and the second east of it.
 */
function fromWall(wallMs: number, tz: string, hint?: number): number {
  const current = offsetMinutes(wallMs, tz);
  const actual = offsetMinutes(wallMs - current * 60000, tz);
  if (current < actual && offsetMinutes(wallMs - actual * 60000, tz) !== actual) {
    return wallMs - current * 60000;
  }
  if (hint !== undefined && hint !== actual && offsetMinutes(wallMs - hint * 60000, tz) === hint) {
    return wallMs - hint * 60000;
  }
  return wallMs - actual * 60000;
}

/** The wall clock of `ms` in `tz`, as fields. */
function wallIn(ms: number, tz: string) {
  return wallOf(ms + offsetMinutes(ms, tz) * 60000);
}

/**
 * Date strings seen recently that name an absolute instant (webhook timestamps repeat across
 * renders): the parse does not depend on "now", so string and default zone give the result.
 * Kept by zone, then text, so a lookup builds no key string.
 */
const parsedCache = new Map<string, Map<string, { ms: number; tz: string; abbr: ZoneAbbr | undefined }>>();
let parsedCount = 0;
const PARSED_CACHE_MAX = 2048;

function zoneOf(zone: ParsedZone): { tz: string; abbr?: ZoneAbbr } {
  if (zone.kind === 'id') return { tz: zone.name };
  const tz = offsetString(zone.minutes, true);
  return zone.kind === 'abbr' ? { tz, abbr: { name: zone.name, dst: zone.dst } } : { tz };
}

const parseFailure = (caller: string, text: string, err: DateParseError): string =>
  `${caller}: Failed to parse time string (${text}) ${describeParseError(err)}`;

function parse(st: RenderState, text: string, caller: string): ParsedTime {
  try {
    return parseDateString(text, () => st.step());
  } catch (err) {
    if (err instanceof DateParseError) return fail(parseFailure(caller, text, err));
    throw err;
  }
}

/** applyRelative, its out-of-range error a render error. */
function relative(wall: Wall, p: ParsedTime, text: string, caller: string): number {
  try {
    return applyRelative(wall, p);
  } catch (err) {
    if (err instanceof DateParseError) return fail(`${caller}: ${text}: ${err.message}`);
    throw err;
  }
}

/** True when the parse names every field and nothing relative: the same instant at any "now". */
function isAbsolute(p: ParsedTime): boolean {
  return (
    !p.haveRelative &&
    p.y !== null &&
    p.m !== null &&
    p.d !== null &&
    ((p.h !== null && p.i !== null && p.s !== null) || (p.haveDate && !p.haveTime))
  );
}

/** `new DateTime($text, $defaultTz)`: the string's own zone if it names one. */
function construct(st: RenderState, text: string): TwigDate {
  if (text === 'now') return new TwigDate(st.now, st.timezone);
  const cached = parsedCache.get(st.timezone)?.get(text);
  if (cached !== undefined) return new TwigDate(cached.ms, cached.tz, cached.abbr);
  const p = parse(st, text, 'DateTime::__construct()');
  const wall = fillHoles(p, wallIn(st.now, st.timezone));
  const zone = p.zone ? zoneOf(p.zone) : { tz: st.timezone };
  const ms = fromWall(relative(wall, p, text, 'DateTime::__construct()'), zone.tz);
  if (isAbsolute(p)) {
    if (parsedCount >= PARSED_CACHE_MAX) {
      parsedCache.clear();
      parsedCount = 0;
    }
    let byText = parsedCache.get(st.timezone);
    if (byText === undefined) {
      byText = new Map();
      parsedCache.set(st.timezone, byText);
    }
    byText.set(text, { ms, tz: zone.tz, abbr: zone.abbr });
    parsedCount++;
  }
  return new TwigDate(ms, zone.tz, zone.abbr);
}

/**
 * DateTime::modify: the string's fields replace the date's, its relative parts move it (PHP's
 * whole grammar: "+1 day", "next monday", "last day of next month", "noon"...). The zone stays,
 * except after "@<timestamp>", which moves the date to UTC as PHP does.
 */
export function modify(st: RenderState, base: TwigDate, text: string): TwigDate | false {
  let p: ParsedTime;
  try {
    p = parseDateString(text, () => st.step());
  } catch (err) {
    if (!(err instanceof DateParseError)) throw err;
    // PHP 8.2 warns and answers false (a date filter after it shows "now"); the date is unchanged
    warn(parseFailure('DateTime::modify()', text, err));
    return false;
  }
  const wall = overlay(p, wallIn(base.ms, base.tz));
  const utc = isTimestamp(p);
  const tz = utc ? '+00:00' : base.tz;
  const wallMs = relative(wall, p, text, 'DateTime::modify()');
  return new TwigDate(fromWall(wallMs, tz, offsetMinutes(base.ms, base.tz)), tz, utc ? undefined : base.abbr);
}

/** Twig's twig_date_converter: DateTime, timestamp, null (now) or a date string. */
export function toDate(st: RenderState, v: Value, timezone: Value | undefined): TwigDate {
  const keepTz = timezone === false;
  const tz =
    timezone === undefined || timezone === null || timezone === false
      ? st.timezone
      : checkTimezone(toStr(timezone));
  // a copy, as Twig's converter clones a DateTime (the modify method changes its own date)
  if (v instanceof TwigDate) return keepTz ? new TwigDate(v.ms, v.tz, v.abbr) : new TwigDate(v.ms, tz);
  if (v === null || v === undefined) return new TwigDate(st.now, tz);
  // Twig casts to string: true is "1" (a timestamp), false "" (now), floats as PHP prints them
  const s = toStr(v);
  if (isIntegerText(s)) {
    // "@<digits>": UTC, shown in the default zone unless the caller keeps the date's zone
    const ms = Number(s) * 1000;
    // beyond what a JS date holds (the year 275,760); PHP goes on to the year 292 billion
    if (!(Math.abs(ms) <= 8.64e15)) return fail(`The timestamp ${s} is out of the supported date range`);
    return new TwigDate(ms, keepTz ? '+00:00' : tz);
  }
  if (!keepTz) {
    // the common case (a sender's timestamp shown in the default zone): one date, not two
    const cached = parsedCache.get(st.timezone)?.get(s);
    if (cached !== undefined) return new TwigDate(cached.ms, tz);
  }
  const date = construct(st, s);
  return keepTz ? date : new TwigDate(date.ms, tz);
}

/** `/^-?[0-9]+$/` without the regex call: a sender's ISO timestamp fails at its fifth character. */
function isIntegerText(s: string): boolean {
  const n = s.length;
  let i = n > 0 && s.charCodeAt(0) === 45 ? 1 : 0; // '-'
  if (i === n) return false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
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
/** "00" to "99": two-digit fields come from a table, not a number's conversion and a concatenation. */
const TWO_DIGITS: readonly string[] = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : String(i)));
const p2 = (n: number): string => TWO_DIGITS[n] ?? (n < 10 && n >= 0 ? `0${n}` : String(n));

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

/** civilFromDays's answer (module slots, not a tuple: a tuple was an allocation per date). */
let civilYear = 0;
let civilMonth = 0;
let civilDay = 0;
/** The day count civilYear/Month/Day belong to: a render's dates mostly fall on a few days. */
let civilDays = Number.NaN;

/**
 * Year, month (1-12) and day of a whole count of days since 1970-01-01 (proleptic Gregorian;
 * Hinnant's days_from_civil inverse). Past the era, every quantity is a small non-negative
 * integer, so `(x / c) | 0` is the floor and compiles to integer arithmetic, not float division.
 */
function civilFromDays(days: number): void {
  if (days === civilDays) return;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097; // 0..146096
  const yoe = ((doe - ((doe / 1460) | 0) + ((doe / 36524) | 0) - ((doe / 146096) | 0)) / 365) | 0;
  const doy = doe - (365 * yoe + ((yoe / 4) | 0) - ((yoe / 100) | 0)); // 0..365
  const mp = ((5 * doy + 2) / 153) | 0; // 0..11, from March
  civilDay = doy - (((153 * mp + 2) / 5) | 0) + 1;
  civilMonth = mp < 10 ? mp + 3 : mp - 9;
  civilYear = yoe + era * 400 + (civilMonth <= 2 ? 1 : 0);
  civilDays = days;
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
  const second = Math.floor(d.ms / 1000);
  const micros = Math.round((d.ms - second * 1000) * 1000);
  // the local wall clock's fields by arithmetic (a Date and seven getters cost more than the
  // rest of a short format); toDate keeps dates within a JS Date's range, where both agree
  let localSec = second + off * 60;
  if (!(Math.abs(localSec) <= 8.64e12)) localSec = Number.NaN; // beyond a Date: every field NaN, as a Date's
  const days = Math.floor(localSec / 86400);
  let Y = Number.NaN;
  let n = Number.NaN;
  let j = Number.NaN;
  let G = Number.NaN;
  let i = Number.NaN;
  let s = Number.NaN;
  let w = Number.NaN;
  if (!Number.isNaN(days)) {
    civilFromDays(days);
    Y = civilYear;
    n = civilMonth;
    j = civilDay;
    const daySec = (localSec - days * 86400) | 0; // a whole number of seconds, 0..86399
    G = (daySec / 3600) | 0;
    i = ((daySec % 3600) / 60) | 0;
    s = daySec % 60;
    w = ((days % 7) + 11) % 7; // 1970-01-01 was a Thursday
  }
  const leap = (Y % 4 === 0 && Y % 100 !== 0) || Y % 400 === 0;
  // The zone's abbreviation can take an Intl call: worked out once, on first use.
  let abbr: string | undefined;
  let out = '';
  // each format character is a step, charged at once (a long format is charged before its work)
  st.step(format.length);
  for (let k = 0; k < format.length; k++) {
    if ((k & (FORMAT_CHECK_EVERY - 1)) === FORMAT_CHECK_EVERY - 1) st.checkString(out.length);
    // by code unit: a switch on numbers is a jump table, on one-character strings a chain of compares
    switch (format.charCodeAt(k)) {
      case 100: // d
        out += p2(j);
        break;
      case 68: // D
        out += DAYS[w]!.slice(0, 3);
        break;
      case 106: // j
        out += j;
        break;
      case 108: // l
        out += DAYS[w];
        break;
      case 78: // N
        out += w === 0 ? 7 : w;
        break;
      case 83: // S
        out +=
          j % 10 === 1 && j !== 11
            ? 'st'
            : j % 10 === 2 && j !== 12
              ? 'nd'
              : j % 10 === 3 && j !== 13
                ? 'rd'
                : 'th';
        break;
      case 119: // w
        out += w;
        break;
      case 122: // z
        out += Math.round((Date.UTC(Y, n - 1, j) - Date.UTC(Y, 0, 1)) / 86400000);
        break;
      case 87: // W
        out += p2(isoWeek(Y, n, j).week);
        break;
      case 111: // o
        out += isoWeek(Y, n, j).year;
        break;
      case 70: // F
        out += MONTHS[n - 1];
        break;
      case 77: // M
        out += MONTHS[n - 1]!.slice(0, 3);
        break;
      case 109: // m
        out += p2(n);
        break;
      case 110: // n
        out += n;
        break;
      case 116: // t
        out += new Date(Date.UTC(Y, n, 0)).getUTCDate();
        break;
      case 76: // L
        out += leap ? '1' : '0';
        break;
      case 89: // Y
        out += Y < 0 ? `-${String(-Y).padStart(4, '0')}` : String(Y).padStart(4, '0');
        break;
      case 88: // X (PHP 8.2): the year, always signed
        out += `${Y < 0 ? '-' : '+'}${String(Math.abs(Y)).padStart(4, '0')}`;
        break;
      case 120: // x (PHP 8.2): the year, signed when negative or past 9999
        out += `${Y < 0 ? '-' : Y > 9999 ? '+' : ''}${String(Math.abs(Y)).padStart(4, '0')}`;
        break;
      case 121: // y
        out += p2(Y % 100);
        break;
      case 97: // a
        out += G < 12 ? 'am' : 'pm';
        break;
      case 65: // A
        out += G < 12 ? 'AM' : 'PM';
        break;
      case 66: {
        // B
        const beat = Math.floor(((((d.ms / 1000 + 3600) % 86400) + 86400) % 86400) / 86.4);
        out += String(beat).padStart(3, '0');
        break;
      }
      case 103: // g
        out += G % 12 || 12;
        break;
      case 71: // G
        out += G;
        break;
      case 104: // h
        out += p2(G % 12 || 12);
        break;
      case 72: // H
        out += p2(G);
        break;
      case 105: // i
        out += p2(i);
        break;
      case 115: // s
        out += p2(s);
        break;
      case 117: // u
        out += String(micros).padStart(6, '0');
        break;
      case 118: // v
        out += String(Math.floor(micros / 1000)).padStart(3, '0');
        break;
      case 101: // e
        out += d.abbr ? d.abbr.name : d.tz;
        break;
      case 73: // I
        out += d.abbr
          ? d.abbr.dst
            ? '1'
            : '0'
          : d.tz === 'UTC' || OFFSET_RE.test(d.tz)
            ? '0'
            : isSummerTime(d, Y)
              ? '1'
              : '0';
        break;
      case 79: // O
        out += offsetString(off, false);
        break;
      case 80: // P
        out += offsetString(off, true);
        break;
      case 112: // p
        out += off === 0 ? 'Z' : offsetString(off, true);
        break;
      case 84: // T
        // an offset zone has no abbreviation: PHP 8.2 prints "GMT+0530"
        abbr ??= d.abbr
          ? d.abbr.name
          : d.tz === 'UTC'
            ? 'UTC'
            : OFFSET_RE.test(d.tz)
              ? `GMT${offsetString(off, false)}`
              : tzAbbr(d);
        out += abbr;
        break;
      case 90: // Z
        out += off * 60;
        break;
      case 99: // c
        out += formatDate(st, d, 'Y-m-d\\TH:i:sP');
        break;
      case 114: // r
        out += formatDate(st, d, 'D, d M Y H:i:s O');
        break;
      case 85: // U
        out += Math.floor(d.ms / 1000);
        break;
      case 92: // \
        k++;
        if (k < format.length) out += format[k];
        break;
      default:
        out += format[k];
    }
  }
  st.checkString(out.length);
  return out;
}

interface AbbreviationEra {
  /** Unix seconds. */
  from: number;
  /** Abbreviation and summer-time flag by UTC offset in seconds. */
  names: Map<number, { name: string; dst: boolean }>;
}

/** Each zone's eras, parsed from tz-abbreviations.ts on the zone's first use (null: none). */
const ERAS = new Map<string, readonly AbbreviationEra[] | null>();

function abbreviationEras(tz: string): readonly AbbreviationEra[] | null {
  let eras = ERAS.get(tz);
  if (eras !== undefined) return eras;
  const spec = Object.hasOwn(TZ_ABBREVIATIONS, tz) ? TZ_ABBREVIATIONS[tz] : undefined;
  eras =
    spec === undefined
      ? null
      : spec.split(';').map((era) => {
          const [from, pairs] = era.split(':') as [string, string];
          const names = new Map<number, { name: string; dst: boolean }>();
          for (const pair of pairs.split(',')) {
            const [offset, name] = pair.split('=') as [string, string];
            const dst = name.endsWith('*');
            names.set(Number(offset), { name: dst ? name.slice(0, -1) : name, dst });
          }
          return { from: Number(from), names };
        });
  ERAS.set(tz, eras);
  return eras;
}

/** The zone's tzdata abbreviation and summer-time flag at that instant, when the table has them. */
function zoneState(d: TwigDate, off: number): { name: string; dst: boolean } | undefined {
  const eras = abbreviationEras(d.tz);
  if (!eras) return undefined;
  const at = Math.floor(d.ms / 1000);
  let era = eras[0]!;
  for (const e of eras) if (e.from <= at) era = e;
  return era.names.get(off * 60);
}

/** PHP's `I`: tzdata's flag where the table has it, else an offset above the year's smaller one. */
function isSummerTime(d: TwigDate, year: number): boolean {
  const off = offsetMinutes(d.ms, d.tz);
  const state = zoneState(d, off);
  if (state !== undefined) return state.dst;
  return off > Math.min(offsetMinutes(Date.UTC(year, 0, 1), d.tz), offsetMinutes(Date.UTC(year, 6, 1), d.tz));
}

/** PHP's `T`: the zone's tzdata abbreviation at that instant ("CEST", "WAT"), else its offset. */
function tzAbbr(d: TwigDate): string {
  const off = offsetMinutes(d.ms, d.tz);
  const state = zoneState(d, off);
  if (state !== undefined) return state.name;
  // zones without an abbreviation print as "+08" or "+0530"
  const a = Math.abs(off);
  return `${off < 0 ? '-' : '+'}${p2(Math.floor(a / 60))}${a % 60 ? p2(a % 60) : ''}`;
}
