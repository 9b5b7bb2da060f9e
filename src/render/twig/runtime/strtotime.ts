/**
 * PHP's date string grammar (timelib's parse_date.re, as PHP 8.2 ships it): the formats that
 * `new DateTime($text)`, strtotime() and DateTime::modify() read. The scanner tries every rule at
 * the current position and takes the longest match (the first rule on a tie), as re2c does; each
 * rule's action fills the same fields timelib fills. evaluate() then does timelib_fill_holes and
 * timelib_update_ts: weekday and "first/last ... of" adjustments, relative units, normalisation.
 * Covered: ISO 8601, RFC 2822, MySQL, American and European dates, textual dates and months,
 * times with am/pm, zone offsets, abbreviations and identifiers, `@` timestamps, and the relative
 * phrases (now, today, noon, tomorrow, +1 day, 2 weeks ago, next monday, last day of next month,
 * first friday of january, +3 weekdays...).
 */

/** A zone as the parser found it: an offset, an abbreviation (with its DST flag) or an identifier. */
export type ParsedZone =
  | { kind: 'offset'; minutes: number }
  | { kind: 'abbr'; name: string; minutes: number; dst: boolean }
  | { kind: 'id'; name: string };

interface Relative {
  y: number;
  m: number;
  d: number;
  h: number;
  i: number;
  s: number;
  us: number;
  weekday: number;
  weekdayBehavior: number;
  haveWeekday: boolean;
  /** 1: first day of the month, 2: last day of the month */
  firstLast: 0 | 1 | 2;
  /** 1: nth weekday of the month, 2: last weekday of the month, 3: N weekdays */
  special: 0 | 1 | 2 | 3;
  /** N of "+N weekdays" */
  weekdays: number;
}

/** What the scanner read: null fields were not given (timelib's TIMELIB_UNSET). */
export interface ParsedTime {
  y: number | null;
  m: number | null;
  d: number | null;
  h: number | null;
  i: number | null;
  s: number | null;
  us: number | null;
  zone: ParsedZone | null;
  haveDate: boolean;
  haveTime: number;
  haveZone: number;
  haveRelative: boolean;
  rel: Relative;
}

export class DateParseError extends Error {
  override readonly name = 'DateParseError';
  /** Where the scanner was, and the character there, as PHP's message names them. */
  position: number | undefined;
  char: string | undefined;
}

/** PHP's words for a parse error: `at position 0 (n): The timezone could not be found...`. */
export const describeParseError = (err: DateParseError): string =>
  err.position === undefined ? err.message : `at position ${err.position} (${err.char}): ${err.message}`;

const ci = (word: string): string =>
  [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c === '.' ? '\\.' : c)).join('');
const alt = (words: readonly string[]): string => `(?:${words.map(ci).join('|')})`;

// timelib's building blocks; alternatives are ordered longest first (a JS regex takes the first
// alternative that matches, re2c the longest).
const space = '[ \\t]+';
const frac = '\\.[0-9]+';
const hour24 = '(?:2[0-4]|[01][0-9]|[0-9])';
const hour24lz = '(?:[01][0-9]|2[0-4])';
const hour12 = '(?:1[0-2]|0?[1-9])';
const minute = '[0-5]?[0-9]';
const minutelz = '[0-5][0-9]';
const second = '(?:60|[0-5]?[0-9])';
const secondlz = '(?:60|[0-5][0-9])';
const meridian = '(?:[AaPp]\\.?[Mm]\\.?)(?:[\\t ]|$)';
const tzcorrection = `(?:GMT)?[+-](?:${hour24lz}:${minutelz}:${secondlz}|${hour24lz}${minutelz}${secondlz}|${hour24}(?::?${minute})?)`;
const tz = `(?:[A-Z][a-z]+(?:[_/-][A-Za-z]+)+|\\(?[A-Za-z]{1,6}\\)?)`;
const daysuf = '(?:st|nd|rd|th)';
const month = '(?:1[0-2]|0?[0-9])';
const day = `(?:3[01]|[0-2]?[0-9])${daysuf}?`;
const year = '[0-9]{1,4}';
const year2 = '[0-9]{2}';
const year4 = '[0-9]{4}';
const year4withsign = '[+-]?[0-9]{4}';
const yearx = '[+-][0-9]{5,19}';
const dayofyear = '(?:36[0-6]|3[0-5][0-9]|[12][0-9][0-9]|0[1-9][0-9]|00[1-9])';
const weekofyear = '(?:5[0-3]|[1-4][0-9]|0[1-9])';
const monthlz = '(?:1[0-2]|0[0-9])';
const daylz = '(?:3[01]|[12][0-9]|0[0-9])';
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const dayfulls = alt(DAY_NAMES.map((d) => `${d}s`));
const dayfull = alt(DAY_NAMES);
const dayabbr = alt(DAY_NAMES.map((d) => d.slice(0, 3)));
const daytext = `(?:${dayfulls}|${dayfull}|${dayabbr}|${alt(['weekdays', 'weekday'])})`;
const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const monthfull = alt(MONTH_NAMES);
const monthabbr = alt([
  'jan',
  'feb',
  'mar',
  'apr',
  'may',
  'jun',
  'jul',
  'aug',
  'sept',
  'sep',
  'oct',
  'nov',
  'dec',
]);
const ROMAN = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII'];
const monthroman = `(?:${[...ROMAN].sort((a, b) => b.length - a.length).join('|')})`;
const monthtext = `(?:${monthfull}|${monthabbr}|${monthroman})`;
const t = '[tT]?';
const RELTEXT_NUMBER = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'eight',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
];
const reltextnumber = alt(RELTEXT_NUMBER);
const reltexttext = alt(['next', 'last', 'previous', 'this']);
const reltextunit = `(?:${alt(['milliseconds', 'millisecond', 'microseconds', 'microsecond', 'msecs', 'msec', 'µsecs', 'µsec', 'usecs', 'usec', 'seconds', 'second', 'secs', 'sec', 'minutes', 'minute', 'mins', 'min', 'hours', 'hour', 'days', 'day', 'fortnights', 'fortnight', 'forthnights', 'forthnight', 'months', 'month', 'years', 'year', 'weeks'])}|${daytext}|${alt(['ms', 'µs'])})`;

const timeshort12 = `${hour12}[:.]${minute}(?:${space})?${meridian}`;
const timelong12 = `${hour12}[:.]${minute}[:.]${second}(?:${space})?${meridian}`;
const timeshort24 = `${t}${hour24}[:.]${minute}`;
const timelong24 = `${t}${hour24}[:.]${minute}[:.]${second}`;
const iso8601normtz = `${t}${hour24}[:.]${minute}[:.]${secondlz}(?:${space})?(?:${tzcorrection}|${tz})`;
const datenoyear = `${monthtext}[ .\\t-]*${day}[,.stndrh\\t ]*`;

type Action = (tok: Cursor, p: ParsedTime) => void;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';
const isLetter = (c: string | undefined): boolean =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === 'µ');

/** A matched token, read the way timelib's helpers read it (numbers, names, zone). */
class Cursor {
  pos = 0;
  constructor(readonly text: string) {}
  get rest(): string {
    return this.text.slice(this.pos);
  }
  /** timelib_get_nr: skips to the next digit, reads at most `max` digits. */
  nr(max: number): { value: number; length: number } | null {
    const text = this.text;
    while (this.pos < text.length && !isDigit(text[this.pos])) this.pos++;
    const start = this.pos;
    while (this.pos < text.length && this.pos - start < max && isDigit(text[this.pos])) this.pos++;
    if (this.pos === start) return null;
    return { value: Number(text.slice(start, this.pos)), length: this.pos - start };
  }
  num(max: number): number {
    return this.nr(max)?.value ?? 0;
  }
  /** timelib_get_signed_nr: the minus signs before the number decide its sign. */
  signedNr(max: number): number {
    let sign = 1;
    while (this.pos < this.text.length && !isDigit(this.text[this.pos])) {
      if (this.text[this.pos] === '-') sign = -sign;
      this.pos++;
    }
    return sign * this.num(max);
  }
  /** timelib_get_frac_nr: ".123" as microseconds. */
  fracUs(): number {
    const m = /^[.,]?([0-9]+)/.exec(this.rest);
    if (!m) return 0;
    this.pos += m[0].length;
    // microseconds: PHP keeps the first six digits and drops the rest
    return Number(m[1]!.slice(0, 6).padEnd(6, '0'));
  }
  skipDaySuffix(): void {
    if (/^(?:st|nd|rd|th)/i.test(this.rest)) this.pos += 2;
  }
  skipSpaces(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos++;
  }
  /** timelib_get_month: skips separators, reads a month name or roman numeral. */
  month(): number {
    while (/[ \t\-./]/.test(this.text[this.pos] ?? '')) this.pos++;
    const word = /^[A-Za-z]+/.exec(this.rest)?.[0] ?? '';
    this.pos += word.length;
    const lc = word.toLowerCase();
    const full = MONTH_NAMES.indexOf(lc);
    if (full >= 0) return full + 1;
    if (lc === 'sept') return 9;
    const abbr = MONTH_NAMES.findIndex((m) => m.slice(0, 3) === lc);
    if (abbr >= 0) return abbr + 1;
    return ROMAN.indexOf(word) + 1;
  }
  /** A word of letters (relative text, unit). */
  word(): string {
    const start = this.pos;
    while (this.pos < this.text.length && isLetter(this.text[this.pos])) this.pos++;
    return this.text.slice(start, this.pos).toLowerCase();
  }
}

function newParsed(): ParsedTime {
  return {
    y: null,
    m: null,
    d: null,
    h: null,
    i: null,
    s: null,
    us: null,
    zone: null,
    haveDate: false,
    haveTime: 0,
    haveZone: 0,
    haveRelative: false,
    rel: {
      y: 0,
      m: 0,
      d: 0,
      h: 0,
      i: 0,
      s: 0,
      us: 0,
      weekday: 0,
      weekdayBehavior: 0,
      haveWeekday: false,
      firstLast: 0,
      special: 0,
      weekdays: 0,
    },
  };
}

function haveTime(p: ParsedTime): void {
  if (p.haveTime) throw new DateParseError('Double time specification');
  p.haveTime = 1;
  p.h = 0;
  p.i = 0;
  p.s = 0;
  p.us = 0;
}
function unhaveTime(p: ParsedTime): void {
  p.haveTime = 0;
  p.h = 0;
  p.i = 0;
  p.s = 0;
  p.us = 0;
}
function haveDate(p: ParsedTime): void {
  if (p.haveDate) throw new DateParseError('Double date specification');
  p.haveDate = true;
}
/** TIMELIB_PROCESS_YEAR: a year of fewer than 4 digits is 19xx from 70, else 20xx. */
function processYear(n: { value: number; length: number } | null): number | null {
  if (n === null) return null;
  if (n.length >= 4) return n.value;
  return n.value < 70 ? n.value + 2000 : n.value + 1900;
}
function meridianHours(tok: Cursor, h: number): number {
  while (tok.pos < tok.text.length && !/[AaPp]/.test(tok.text[tok.pos]!)) tok.pos++;
  const am = /[Aa]/.test(tok.text[tok.pos] ?? '');
  tok.pos = tok.text.length;
  if (am) return h === 12 ? -12 : 0;
  return h !== 12 ? 12 : 0;
}

/** Zone abbreviations timelib knows, as PHP 8.2 reads them: [standard offset in minutes, DST]. */
const ABBREVIATIONS: Readonly<Record<string, readonly [number, 0 | 1]>> = {
  utc: [0, 0],
  gmt: [0, 0],
  z: [0, 0],
  est: [-300, 0],
  edt: [-300, 1],
  cst: [-360, 0],
  cdt: [-360, 1],
  mst: [-420, 0],
  mdt: [-420, 1],
  pst: [-480, 0],
  pdt: [-480, 1],
  akst: [-540, 0],
  akdt: [-540, 1],
  hst: [-600, 0],
  cet: [60, 0],
  cest: [60, 1],
  met: [60, 0],
  mest: [60, 1],
  eet: [120, 0],
  eest: [120, 1],
  wet: [0, 0],
  west: [0, 1],
  bst: [0, 1],
  ist: [120, 0],
  idt: [120, 1],
  jst: [540, 0],
  kst: [510, 0],
  hkt: [480, 0],
  aest: [600, 0],
  aedt: [600, 1],
  acst: [570, 0],
  acdt: [570, 1],
  awst: [480, 0],
  nzst: [720, 0],
  nzdt: [720, 1],
  msk: [180, 0],
  sast: [120, 0],
  wib: [420, 0],
  ast: [-240, 0],
  adt: [-240, 1],
  nst: [-210, 0],
  cat: [120, 0],
  eat: [180, 0],
  wat: [60, 0],
  pkt: [300, 0],
  // military zones
  a: [60, 0],
  b: [120, 0],
  c: [180, 0],
  d: [240, 0],
  e: [300, 0],
  f: [360, 0],
  g: [420, 0],
  h: [480, 0],
  i: [540, 0],
  k: [600, 0],
  l: [660, 0],
  m: [720, 0],
  n: [-60, 0],
  o: [-120, 0],
  p: [-180, 0],
  q: [-240, 0],
  r: [-300, 0],
  s: [-360, 0],
  t: [-420, 0],
  u: [-480, 0],
  v: [-540, 0],
  w: [-600, 0],
  x: [-660, 0],
  y: [-720, 0],
};

const zoneIdCache = new Map<string, string | null>();

/** The tz database's name for `name` (any case), or null. */
export function zoneIdentifier(name: string): string | null {
  const cached = zoneIdCache.get(name);
  if (cached !== undefined) return cached;
  let found: string | null = null;
  if (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) {
    try {
      const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
      found = resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
    } catch {
      found = null;
    }
  }
  if (zoneIdCache.size > 512) zoneIdCache.clear();
  zoneIdCache.set(name, found);
  return found;
}

/** timelib_parse_tz_cor: "5", "05", "530", "0530", "05:30", "053045", "05:30:45" → minutes. */
function tzCorrection(text: string): number {
  const m = /^([0-9]{1,2})(?::?([0-9]{2}))?(?::?([0-9]{2}))?/.exec(text);
  if (!m) throw new DateParseError('The timezone could not be found in the database');
  const digits = text.replace(/[^0-9]/g, '');
  if (digits.length === 3 && !text.includes(':')) return Number(digits[0]) * 60 + Number(digits.slice(1));
  return Number(m[1]) * 60 + Number(m[2] ?? 0);
}

/** timelib_parse_zone on the rest of a token. */
function parseZone(text: string, p: ParsedTime): void {
  let s = text.replace(/^[ \t(]+/, '');
  if (/^GMT[+-]/.test(s)) s = s.slice(3);
  if (s[0] === '+' || s[0] === '-') {
    const minutes = tzCorrection(s.slice(1)) * (s[0] === '-' ? -1 : 1);
    p.zone = { kind: 'offset', minutes };
    return;
  }
  const word = /^[^ )]*/.exec(s)?.[0] ?? '';
  const abbr = ABBREVIATIONS[word.toLowerCase()];
  if (abbr && word !== 'UTC') {
    p.zone = { kind: 'abbr', name: word.toUpperCase(), minutes: abbr[0] + abbr[1] * 60, dst: abbr[1] === 1 };
    return;
  }
  const id = word === 'UTC' ? 'UTC' : zoneIdentifier(word);
  if (id === null) throw new DateParseError('The timezone could not be found in the database');
  p.zone = { kind: 'id', name: id };
}

function haveZone(p: ParsedTime): boolean {
  p.haveZone++;
  if (p.haveZone > 2) throw new DateParseError('Double timezone specification');
  return p.haveZone === 1;
}

const RELUNITS = new Map<string, [string, number]>();
for (const [unit, mult, words] of [
  ['us', 1000, 'ms msec msecs millisecond milliseconds'],
  ['us', 1, 'µs usec usecs µsec µsecs microsecond microseconds'],
  ['s', 1, 'sec secs second seconds'],
  ['i', 1, 'min mins minute minutes'],
  ['h', 1, 'hour hours'],
  ['d', 1, 'day days'],
  ['d', 7, 'week weeks'],
  ['d', 14, 'fortnight fortnights forthnight forthnights'],
  ['m', 1, 'month months'],
  ['y', 1, 'year years'],
  ['special', 1, 'weekday weekdays'],
] as const) {
  for (const w of words.split(' ')) RELUNITS.set(w, [unit, mult]);
}
DAY_NAMES.forEach((full, k) => {
  for (const w of [full, `${full}s`, full.slice(0, 3)]) RELUNITS.set(w, ['weekday', k]);
});

/** timelib_relunit lookup: [unit, multiplier]; weekday units carry the day of the week. */
function relunit(word: string): [string, number] | null {
  return RELUNITS.get(word.toLowerCase()) ?? null;
}

/** timelib_set_relative. */
function setRelative(
  p: ParsedTime,
  amount: number,
  unitWord: string,
  behavior: number,
  keepTime: boolean,
): void {
  const unit = relunit(unitWord);
  if (!unit) return;
  const [u, mult] = unit;
  const r = p.rel;
  switch (u) {
    case 'us':
    case 's':
    case 'i':
    case 'h':
    case 'd':
    case 'm':
    case 'y':
      r[u] += amount * mult;
      break;
    case 'weekday':
      r.haveWeekday = true;
      if (!keepTime) unhaveTime(p);
      r.d += (amount > 0 ? amount - 1 : amount) * 7;
      r.weekday = mult;
      r.weekdayBehavior = behavior;
      break;
    default:
      if (!keepTime) unhaveTime(p);
      r.special = 3;
      r.weekdays = amount;
  }
}

/** timelib_get_relative_text: [amount, behavior]. */
function relativeText(word: string): [number, number] {
  const w = word.toLowerCase();
  if (w === 'last' || w === 'previous') return [-1, 0];
  if (w === 'this') return [0, 1];
  if (w === 'next') return [1, 0];
  const n = RELTEXT_NUMBER.indexOf(w);
  // 'eighth' and 'eight' are both 8
  return [n < 0 ? 0 : n >= 8 ? n : n + 1, 0];
}

interface Rule {
  /** The characters a match can start with: the scanner tries only these rules there. */
  first: RegExp;
  /** Length of the match at `pos`, 0 for none. */
  match: (text: string, pos: number) => number;
  action: Action;
}

function rule(first: string, source: string | Rule['match'], action: Action): Rule {
  if (typeof source !== 'string') return { first: new RegExp(first), match: source, action };
  const re = new RegExp(source, 'y');
  const match = (text: string, pos: number): number => {
    re.lastIndex = pos;
    return re.test(text) ? re.lastIndex - pos : 0;
  };
  return { first: new RegExp(first), match, action };
}

/**
 * timelib's `relative` (relnumber space? (reltextunit | 'week')) without a regex: it is the rule
 * a long modifier ("+1 day +1 day ...") hits at every term. The unit is the longest unit name
 * the letters start with, as the regex's longest match would be.
 */
function matchRelative(text: string, pos: number): number {
  let k = pos;
  // timelib reads any number of signs; 64 keeps the scan linear on a text of nothing but signs
  while ((text[k] === '+' || text[k] === '-') && k - pos < 64) k++;
  while (isBlank(text[k])) k++;
  const digits = k;
  while (isDigit(text[k]) && k - digits < 13) k++;
  if (k === digits || isDigit(text[k])) return 0;
  while (isBlank(text[k])) k++;
  let end = k;
  while (end < text.length && end - k < 12 && isLetter(text[end])) end++;
  const word = text.slice(k, end).toLowerCase();
  if (RELUNITS.has(word)) return end - pos;
  for (let len = word.length - 1; len >= 2; len--) {
    if (RELUNITS.has(word.slice(0, len))) return k + len - pos;
  }
  return 0;
}

const dateTextual: Action = (tok, p) => {
  haveDate(p);
  p.m = tok.month();
  p.d = tok.num(2);
  tok.skipDaySuffix();
  p.y = processYear(tok.nr(4));
};

const timeAction: Action = (tok, p) => {
  haveTime(p);
  p.h = tok.num(2);
  p.i = tok.num(2);
  if (tok.text[tok.pos] === ':' || tok.text[tok.pos] === '.') {
    p.s = tok.num(2);
    if (tok.text[tok.pos] === '.') p.us = tok.fracUs();
  }
  const rest = tok.rest;
  if (rest.trim() !== '') {
    if (haveZone(p)) parseZone(rest, p);
  }
};

const time12Action: Action = (tok, p) => {
  haveTime(p);
  p.h = tok.num(2);
  if (tok.text[tok.pos] === ':' || tok.text[tok.pos] === '.') {
    p.i = tok.num(2);
    if (tok.text[tok.pos] === ':' || tok.text[tok.pos] === '.') p.s = tok.num(2);
  }
  p.h += meridianHours(tok, p.h);
};

const fullDateTime: Action = (tok, p) => {
  haveTime(p);
  haveDate(p);
  p.y = tok.num(4);
  p.m = tok.num(2);
  p.d = tok.num(2);
  p.h = tok.num(2);
  p.i = tok.num(2);
  p.s = tok.num(2);
  if (tok.text[tok.pos] === '.') p.us = tok.fracUs();
  const rest = tok.rest;
  if (rest.trim() !== '' && haveZone(p)) parseZone(rest, p);
};

/** timelib_daynr_from_weeknr */
function dayNrFromWeekNr(iy: number, iw: number, id: number): number {
  const dow = dayOfWeek(iy, 1, 1);
  const d0 = 0 - (dow > 4 ? dow - 7 : dow);
  return d0 + (iw - 1) * 7 + id;
}

/** The rules in timelib's order: on a tie in length the earlier one wins. */
const RULES: readonly Rule[] = [
  rule('[yY]', ci('yesterday'), (_tok, p) => {
    p.haveRelative = true;
    unhaveTime(p);
    p.rel.d = -1;
  }),
  rule('[nN]', ci('now'), () => {}),
  rule('[nN]', ci('noon'), (_tok, p) => {
    unhaveTime(p);
    haveTime(p);
    p.h = 12;
  }),
  rule('[mMtT]', `${alt(['midnight', 'today'])}`, (_tok, p) => unhaveTime(p)),
  rule('[tT]', ci('tomorrow'), (_tok, p) => {
    p.haveRelative = true;
    unhaveTime(p);
    p.rel.d = 1;
  }),
  rule('@', '@-?[0-9]+', (tok, p) => timestampAction(tok, p, false)),
  rule('@', '@-?[0-9]+\\.[0-9]{0,6}', (tok, p) => timestampAction(tok, p, true)),
  rule('[fFlL]', `(?:${ci('first day of')}|${ci('last day of')})`, (tok, p) => {
    p.haveRelative = true;
    p.rel.firstLast = /^[lL]/.test(tok.text) ? 2 : 1;
  }),
  rule(
    '[bBfF]',
    `(?:${ci('back of ')}|${ci('front of ')})${hour24}(?:(?:${space})?${meridian})?`,
    (tok, p) => {
      unhaveTime(p);
      haveTime(p);
      const back = /^[bB]/.test(tok.text);
      tok.pos = back ? 8 : 9;
      let h = tok.num(2);
      if (/[AaPp]/.test(tok.rest)) h += meridianHours(tok, h);
      if (back) {
        p.h = h;
        p.i = 15;
      } else {
        p.h = h - 1;
        p.i = 45;
      }
    },
  ),
  rule(
    '[A-Za-z]',
    `(?:${reltextnumber}|${reltexttext})${space}(?:${dayfulls}|${dayfull}|${dayabbr})${space}${ci('of')}`,
    (tok, p) => {
      p.haveRelative = true;
      const [amount, behavior] = relativeText(tok.word());
      tok.skipSpaces();
      const unit = tok.word();
      if (amount > 0) {
        p.rel.special = 1;
        setRelative(p, amount, unit, 1, false);
      } else {
        p.rel.special = 2;
        setRelative(p, amount, unit, behavior, false);
      }
    },
  ),
  rule('[0-9]', `(?:${hour12}(?:${space})?${meridian}|${timeshort12}|${timelong12})`, time12Action),
  rule('[0-9]', `${hour12}:${minutelz}:${secondlz}[:.][0-9]+${meridian}`, (tok, p) => {
    haveTime(p);
    p.h = tok.num(2);
    p.i = tok.num(2);
    p.s = tok.num(2);
    if (tok.text[tok.pos] === ':' || tok.text[tok.pos] === '.') p.us = tok.fracUs();
    p.h += meridianHours(tok, p.h);
  }),
  rule('[0-9tT]', `(?:${timelong24}${frac}|${timelong24}|${timeshort24})`, timeAction),
  rule('[0-9tT]', `${t}${hour24lz}${minutelz}`, (tok, p) => {
    if (p.haveTime === 0) {
      p.h = tok.num(2);
      p.i = tok.num(2);
      p.s = 0;
    } else if (p.haveTime === 1) p.y = tok.num(4);
    else throw new DateParseError('Double time specification');
    p.haveTime++;
  }),
  rule('[0-9tT]', `${t}${hour24lz}${minutelz}${secondlz}`, (tok, p) => {
    haveTime(p);
    p.h = tok.num(2);
    p.i = tok.num(2);
    p.s = tok.num(2);
  }),
  rule('[0-9]', `${month}/${day}(?:/${year})?`, (tok, p) => {
    haveDate(p);
    p.m = tok.num(2);
    p.d = tok.num(2);
    if (tok.text[tok.pos] === '/' || tok.rest.startsWith('st/') || /^[a-z]{2}\//i.test(tok.rest)) {
      p.y = processYear(tok.nr(4));
    }
  }),
  rule(
    '[0-9+-]',
    `(?:${year4withsign}-${monthlz}-${daylz}|${year4}/${monthlz}/${daylz}/?|${year4}/${month}/${day})`,
    (tok, p) => {
      haveDate(p);
      p.y = tok.signedNr(4);
      p.m = tok.num(2);
      p.d = tok.num(2);
    },
  ),
  rule('[0-9]', `${year2}-${monthlz}-${daylz}`, (tok, p) => {
    haveDate(p);
    p.y = processYear(tok.nr(4));
    p.m = tok.num(2);
    p.d = tok.num(2);
  }),
  rule('[+-]', `${yearx}-${monthlz}-${daylz}`, (tok, p) => {
    haveDate(p);
    p.y = tok.signedNr(19);
    p.m = tok.num(2);
    p.d = tok.num(2);
  }),
  rule('[0-9]', `${year4}-${month}`, (tok, p) => {
    haveDate(p);
    p.y = processYear(tok.nr(4));
    p.m = tok.num(2);
    p.d = 1;
  }),
  rule('[0-9]', `${year}-${month}-${day}`, (tok, p) => {
    haveDate(p);
    p.y = processYear(tok.nr(4));
    p.m = tok.num(2);
    p.d = tok.num(2);
  }),
  rule('[0-9]', `${day}[ \\t.-]*${monthtext}[ \\t.-]*${year}`, (tok, p) => {
    haveDate(p);
    p.d = tok.num(2);
    tok.skipDaySuffix();
    p.m = tok.month();
    p.y = processYear(tok.nr(4));
  }),
  rule('[0-9]', `${day}[.\\t-]${month}[.-]${year4}`, (tok, p) => {
    haveDate(p);
    p.d = tok.num(2);
    p.m = tok.num(2);
    p.y = processYear(tok.nr(4));
  }),
  rule('[0-9]', `${day}[.\\t]${month}\\.${year2}`, (tok, p) => {
    haveDate(p);
    p.d = tok.num(2);
    p.m = tok.num(2);
    p.y = processYear(tok.nr(2));
  }),
  rule('[A-Za-z]', `${monthtext}[ .\\t-]*${year4}`, (tok, p) => {
    haveDate(p);
    p.m = tok.month();
    p.y = processYear(tok.nr(4));
    p.d = 1;
  }),
  rule('[0-9]', `${year4}[ .\\t-]*${monthtext}`, (tok, p) => {
    haveDate(p);
    p.y = processYear(tok.nr(4));
    p.m = tok.month();
    p.d = 1;
  }),
  // timelib's `datetextual | datenoyear` as two rules, so that the longer match wins as in re2c
  // (a JS alternation takes the first: "Dec 25 next" read "Dec 2" + year 5, not "Dec 25 n")
  rule('[A-Za-z]', `${monthtext}[ .\\t-]*${day}[,.stndrh\\t ]*${year}`, dateTextual),
  rule('[A-Za-z]', datenoyear, dateTextual),
  rule('[0-9]', `${day}[ .\\t-]*${monthtext}`, (tok, p) => {
    haveDate(p);
    p.d = tok.num(2);
    tok.skipDaySuffix();
    p.m = tok.month();
  }),
  rule('[0-9]', `${year4}${monthlz}${daylz}`, (tok, p) => {
    haveDate(p);
    p.y = tok.num(4);
    p.m = tok.num(2);
    p.d = tok.num(2);
  }),
  rule(
    '[0-9]',
    `(?:${year4}${monthlz}${daylz}T${hour24}${minutelz}${secondlz}|${year4}${monthlz}${daylz}[tT]${hour24}${minutelz}${secondlz}|${year4}-${monthlz}-${daylz}T${hour24lz}:${minutelz}:${secondlz}${frac}(?:${tzcorrection})?|${year4}-${month}-${day}T${hour24}:${minute}:${second}|${year4}:${monthlz}:${daylz} ${hour24lz}:${minutelz}:${secondlz})`,
    fullDateTime,
  ),
  rule('[0-9]', `${year4}\\.?${dayofyear}`, (tok, p) => {
    haveDate(p);
    p.y = processYear(tok.nr(4));
    p.d = tok.num(3);
    p.m = 1;
  }),
  rule('[0-9]', `${year4}-?W${weekofyear}-?[0-7]`, (tok, p) => {
    haveDate(p);
    p.haveRelative = true;
    p.y = tok.num(4);
    const w = tok.num(2);
    const d = tok.num(1);
    p.m = 1;
    p.d = 1;
    p.rel.d = dayNrFromWeekNr(p.y, w, d);
  }),
  rule('[0-9]', `${year4}-?W${weekofyear}`, (tok, p) => {
    haveDate(p);
    p.haveRelative = true;
    p.y = tok.num(4);
    const w = tok.num(2);
    p.m = 1;
    p.d = 1;
    p.rel.d = dayNrFromWeekNr(p.y, w, 1);
  }),
  rule('[A-Za-z]', `${monthabbr}-${daylz}-${year}`, (tok, p) => {
    haveDate(p);
    p.m = tok.month();
    p.d = tok.num(2);
    p.y = processYear(tok.nr(4));
  }),
  rule('[0-9]', `${year}-${monthabbr}-${daylz}`, (tok, p) => {
    haveDate(p);
    p.y = processYear(tok.nr(4));
    p.m = tok.month();
    p.d = tok.num(2);
  }),
  rule(
    '[0-9]',
    `${day}/${monthabbr}/${year4}:${hour24lz}:${minutelz}:${secondlz}${space}${tzcorrection}`,
    (tok, p) => {
      haveTime(p);
      haveDate(p);
      p.d = tok.num(2);
      p.m = tok.month();
      p.y = tok.num(4);
      p.h = tok.num(2);
      p.i = tok.num(2);
      p.s = tok.num(2);
      if (haveZone(p)) parseZone(tok.rest, p);
    },
  ),
  rule('[0-9]', year4, (tok, p) => {
    p.y = tok.num(4);
  }),
  rule('[aA]', ci('ago'), (_tok, p) => {
    const r = p.rel;
    r.y = -r.y;
    r.m = -r.m;
    r.d = -r.d;
    r.h = -r.h;
    r.i = -r.i;
    r.s = -r.s;
    r.weekday = -r.weekday;
    if (r.weekday === 0) r.weekday = -7;
    if (r.special === 3) r.weekdays = -r.weekdays;
  }),
  rule('[A-Za-z]', daytext, (tok, p) => {
    p.haveRelative = true;
    p.rel.haveWeekday = true;
    unhaveTime(p);
    // "weekday" alone reads as Monday (timelib takes the special unit's code, 1, as the day)
    const unit = relunit(tok.word());
    p.rel.weekday = unit?.[1] ?? 0;
    if (p.rel.weekdayBehavior !== 2) p.rel.weekdayBehavior = 1;
  }),
  rule('[A-Za-z]', `${reltexttext}${space}${ci('week')}`, (tok, p) => {
    p.haveRelative = true;
    const [amount, behavior] = relativeText(tok.word());
    tok.skipSpaces();
    setRelative(p, amount, tok.word(), behavior, false);
    p.rel.weekdayBehavior = 2;
    if (!p.rel.haveWeekday) {
      p.rel.haveWeekday = true;
      p.rel.weekday = 1;
    }
  }),
  rule('[A-Za-z]', `(?:${reltextnumber}|${reltexttext})${space}${reltextunit}`, (tok, p) => {
    p.haveRelative = true;
    const [amount, behavior] = relativeText(tok.word());
    tok.skipSpaces();
    setRelative(p, amount, tok.word(), behavior, false);
  }),
  rule('[A-Za-z]', `(?:${monthfull}|${monthabbr})`, (tok, p) => {
    haveDate(p);
    p.m = tok.month();
  }),
  rule('[A-Za-z(+-]', `(?:${tzcorrection}|${tz})`, (tok, p) => {
    if (haveZone(p)) parseZone(tok.text, p);
  }),
  rule('[A-Za-z]', `${datenoyear}(?:${timeshort12}|${timelong12})`, (tok, p) => {
    haveDate(p);
    p.m = tok.month();
    p.d = tok.num(2);
    haveTime(p);
    p.h = tok.num(2);
    p.i = tok.num(2);
    if (tok.text[tok.pos] === ':' || tok.text[tok.pos] === '.') p.s = tok.num(2);
    p.h += meridianHours(tok, p.h);
  }),
  rule('[A-Za-z]', `${datenoyear}(?:${iso8601normtz}|${timelong24}|${timeshort24})`, (tok, p) => {
    haveDate(p);
    p.m = tok.month();
    p.d = tok.num(2);
    haveTime(p);
    p.h = tok.num(2);
    p.i = tok.num(2);
    if (tok.text[tok.pos] === ':') {
      p.s = tok.num(2);
      if (tok.text[tok.pos] === '.') p.us = tok.fracUs();
    }
    const rest = tok.rest;
    if (rest.trim() !== '' && haveZone(p)) parseZone(rest, p);
  }),
  rule('[0-9+-]', matchRelative, (tok, p) => {
    p.haveRelative = true;
    const amount = tok.signedNr(13);
    tok.skipSpaces();
    setRelative(p, amount, tok.word(), 1, true);
  }),
];

function timestampAction(tok: Cursor, p: ParsedTime, withFraction: boolean): void {
  p.haveRelative = true;
  p.haveDate = false;
  unhaveTime(p);
  if (haveZone(p)) p.zone = { kind: 'offset', minutes: 0 };
  const m = /^@(-?)([0-9]+)(?:\.([0-9]*))?$/.exec(tok.text)!;
  const sign = m[1] === '-' ? -1 : 1;
  p.y = 1970;
  p.m = 1;
  p.d = 1;
  p.rel.s += sign * Number(m[2]);
  if (withFraction) p.rel.us += sign * Number((m[3] ?? '').padEnd(6, '0') || '0');
}

const BLANK = new Set([' ', '\t', '\n', '\r', '\v', '\0']);

/** timelib's trim (a loop: a regex anchored at the end would be quadratic on long blank runs). */
function trimBlanks(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && BLANK.has(s[a]!)) a++;
  while (b > a && BLANK.has(s[b - 1]!)) b--;
  return s.slice(a, b);
}

const rulesByFirst = new Map<string, readonly Rule[]>();

/** The rules that can match at a character (each rule's first characters, worked out once). */
function rulesAt(c: string): readonly Rule[] {
  let rules = rulesByFirst.get(c);
  if (rules === undefined) {
    rules = RULES.filter((r) => r.first.test(c));
    if (rulesByFirst.size < 256) rulesByFirst.set(c, rules);
  }
  return rules;
}

/**
 * The commonest sender timestamp, ISO 8601 with seconds ("2024-03-10T15:30:00.123Z",
 * "2024-03-10 15:30:00+02:00"), read without the scanner. The digit patterns are timelib's, so
 * the fields are those the scanner's rules (wddx, soap, iso8601date4 + time, zone) would give.
 */
const ISO_FAST =
  /^([0-9]{4})-(1[0-2]|0[0-9])-(3[01]|[12][0-9]|0[0-9])[T ]([01][0-9]|2[0-4]):([0-5][0-9]):(60|[0-5][0-9])(?:\.([0-9]{1,6}))?(Z|[+-](?:[01][0-9]|2[0-4]):[0-5][0-9])?$/;

/**
 * Parses a date string; throws DateParseError where PHP reports an error. `step` is called for
 * every token: the render charges it to its budget (a text may hold thousands of terms).
 */
export function parseDateString(input: string, step: () => void = () => {}): ParsedTime {
  const text = trimBlanks(input);
  const iso = ISO_FAST.exec(text);
  if (iso) {
    const p = newParsed();
    p.haveDate = true;
    p.haveTime = 1;
    p.y = Number(iso[1]);
    p.m = Number(iso[2]);
    p.d = Number(iso[3]);
    p.h = Number(iso[4]);
    p.i = Number(iso[5]);
    p.s = Number(iso[6]);
    p.us = iso[7] === undefined ? 0 : Number(iso[7].padEnd(6, '0'));
    const zone = iso[8];
    if (zone !== undefined) {
      p.haveZone = 1;
      p.zone =
        zone === 'Z'
          ? { kind: 'abbr', name: 'Z', minutes: 0, dst: false }
          : {
              kind: 'offset',
              minutes: (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4))),
            };
    }
    return p;
  }
  return scanDateString(text, step);
}

/** The scanner, on a trimmed text (exported for the test that checks the ISO fast path). */
export function scanDateString(text: string, step: () => void = () => {}): ParsedTime {
  const p = newParsed();
  let pos = 0;
  while (pos < text.length) {
    step();
    let best: Rule | null = null;
    let bestLen = 0;
    for (const r of rulesAt(text[pos]!)) {
      const len = r.match(text, pos);
      if (len > bestLen) {
        best = r;
        bestLen = len;
      }
    }
    if (best) {
      try {
        best.action(new Cursor(text.slice(pos, pos + bestLen)), p);
      } catch (err) {
        // timelib names the token where it found the error
        if (err instanceof DateParseError && err.position === undefined) {
          err.position = pos;
          err.char = text[pos];
        }
        throw err;
      }
      pos += bestLen;
      continue;
    }
    const c = text[pos]!;
    if (c === ' ' || c === ',' || c === '.' || c === '\t' || c === '\n') {
      pos++;
      continue;
    }
    const unexpected = new DateParseError('Unexpected character');
    unexpected.position = pos;
    unexpected.char = c;
    throw unexpected;
  }
  return p;
}

/** Day of the week, 0 = Sunday, for any (possibly out of range) y-m-d. */
export function dayOfWeek(y: number, m: number, d: number): number {
  return new Date(utcWall(y, m, d, 0, 0, 0)).getUTCDay();
}

/** ms since the epoch of a wall-clock time read as UTC; fields may be out of range (they carry). */
export function utcWall(y: number, m: number, d: number, h: number, i: number, s: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  date.setUTCHours(h, i, s, 0);
  return date.getTime();
}

/** Wall-clock fields, all set. */
export interface Wall {
  y: number;
  m: number;
  d: number;
  h: number;
  i: number;
  s: number;
  us: number;
}

/** The fields of a wall-clock instant (ms read as UTC). */
export function wallOf(ms: number): Wall {
  const whole = Math.floor(ms / 1000) * 1000;
  const d = new Date(whole);
  return {
    y: d.getUTCFullYear(),
    m: d.getUTCMonth() + 1,
    d: d.getUTCDate(),
    h: d.getUTCHours(),
    i: d.getUTCMinutes(),
    s: d.getUTCSeconds(),
    us: Math.round((ms - whole) * 1000),
  };
}

function normalize(w: Wall): Wall {
  const secs = Math.floor(w.us / 1e6);
  const n = wallOf(utcWall(w.y, w.m, w.d, w.h, w.i, w.s + secs));
  n.us = w.us - secs * 1e6;
  return n;
}

/**
 * timelib_update_ts without the zone: weekday, "first/last ... of" and relative adjustments on
 * wall-clock fields. Answers the adjusted wall clock as ms read as UTC (with microseconds).
 */
export function applyRelative(w: Wall, p: ParsedTime): number {
  const r = p.rel;
  let t: Wall = { ...w };
  let relM = r.m;
  // do_adjust_special_early: the nth (or last) weekday of a month counts from its first day
  if (r.special === 1 || r.special === 2) {
    t.d = 1;
    t.m += r.m + (r.special === 2 ? 1 : 0);
    relM = 0;
  }
  applyFirstLast(t, r);
  t = normalize(t);
  if (r.haveWeekday) {
    const dow = dayOfWeek(t.y, t.m, t.d);
    let weekday = r.weekday;
    if (r.weekdayBehavior === 2) {
      if (dow === 0 && weekday !== 0) weekday -= 7;
      if (weekday === 0 && dow !== 0) weekday = 7;
      t.d += weekday - dow;
    } else {
      let difference = weekday - dow;
      if ((r.d < 0 && difference < 0) || (r.d >= 0 && difference <= -r.weekdayBehavior)) difference += 7;
      if (weekday >= 0) t.d += difference;
      else t.d -= 7 - (Math.abs(weekday) - dow);
    }
  }
  t = normalize(t);
  t.us += r.us;
  t.s += r.s;
  t.i += r.i;
  t.h += r.h;
  t.d += r.d;
  t.m += relM;
  t.y += r.y;
  applyFirstLast(t, r);
  t = normalize(t);
  if (r.special === 3) t = addWeekdays(t, r.weekdays);
  const ms = utcWall(t.y, t.m, t.d, t.h, t.i, t.s) + t.us / 1000;
  if (!Number.isFinite(ms)) throw new DateParseError('the date is out of range');
  return ms;
}

function applyFirstLast(t: Wall, r: Relative): void {
  if (r.firstLast === 1) t.d = 1;
  else if (r.firstLast === 2) {
    t.d = 0;
    t.m++;
  }
}

/** "+N weekdays": N working days on, Saturdays and Sundays skipped (timelib's special weekday). */
function addWeekdays(t: Wall, count: number): Wall {
  const step = count < 0 ? -1 : 1;
  let dow = dayOfWeek(t.y, t.m, t.d);
  let d = t.d;
  if (count === 0) {
    if (dow === 6) d += 2;
    else if (dow === 0) d += 1;
  }
  for (let left = Math.abs(count); left > 0; ) {
    d += step;
    dow = (dow + step + 7) % 7;
    if (dow !== 0 && dow !== 6) left--;
  }
  return normalize({ ...t, d });
}

/** timelib_fill_holes (TIMELIB_NO_CLOBBER): what `new DateTime($text)` does with `now`. */
export function fillHoles(p: ParsedTime, now: Wall): Wall {
  let { h, i, s, us } = p;
  if (p.haveDate && !p.haveTime) {
    h = 0;
    i = 0;
    s = 0;
    us = 0;
  }
  const anySet = p.y !== null || p.m !== null || p.d !== null || h !== null || i !== null || s !== null;
  return {
    y: p.y ?? now.y,
    m: p.m ?? now.m,
    d: p.d ?? now.d,
    h: h ?? now.h,
    i: i ?? now.i,
    s: s ?? now.s,
    us: us ?? (anySet ? 0 : now.us),
  };
}

/** php_date_modify: the parsed fields replace the base's, a time without minutes means :00. */
export function overlay(p: ParsedTime, base: Wall): Wall {
  const w = { ...base };
  if (p.y !== null) w.y = p.y;
  if (p.m !== null) w.m = p.m;
  if (p.d !== null) w.d = p.d;
  if (p.h !== null) {
    w.h = p.h;
    if (p.i !== null) {
      w.i = p.i;
      w.s = p.s ?? 0;
    } else {
      w.i = 0;
      w.s = 0;
    }
  }
  if (p.us !== null) w.us = p.us;
  return w;
}

/** True when the parse came from "@<timestamp>" (modify then moves the date to UTC). */
export function isTimestamp(p: ParsedTime): boolean {
  return (
    p.y === 1970 &&
    p.m === 1 &&
    p.d === 1 &&
    p.h === 0 &&
    p.i === 0 &&
    p.s === 0 &&
    p.us === 0 &&
    p.zone?.kind === 'offset' &&
    p.zone.minutes === 0
  );
}
