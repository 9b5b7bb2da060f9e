// PHP's date grammar (src/render/twig/runtime/strtotime.ts). The conformance corpus
// (cases/dates-*.json) compares whole renders with PHP Twig; these tests pin the pieces: the ISO
// fast path against the scanner, PHP's parse errors, and work that stays linear in the text.
// Expected values below were printed by PHP 8.2 (strtotime with now = 2024-01-15 12:00 UTC).
import { describe, expect, it } from 'vitest';
import { diffDates } from '../../../src/render/twig/runtime/date-interval.js';
import {
  applyRelative,
  DateParseError,
  fillHoles,
  parseDateString,
  scanDateString,
  wallOf,
} from '../../../src/render/twig/runtime/strtotime.js';

const NOW = Date.UTC(2024, 0, 15, 12, 0, 0);

/** strtotime($text, NOW) in UTC, as "Y-m-d H:i:s". */
function strtotime(text: string): string {
  const p = parseDateString(text);
  const wallMs = applyRelative(fillHoles(p, wallOf(NOW)), p);
  const offset = p.zone?.kind === 'offset' || p.zone?.kind === 'abbr' ? p.zone.minutes : 0;
  return new Date(wallMs - offset * 60000).toISOString().slice(0, 19).replace('T', ' ');
}

describe('parseDateString', () => {
  it('reads ISO 8601 on its fast path exactly as the scanner does', () => {
    for (const text of [
      '2024-03-10T15:30:00Z',
      '2024-03-10T15:30:00.123456Z',
      '2024-03-10T15:30:00.5+02:00',
      '2024-03-10 15:30:00',
      '2024-03-10 15:30:00-05:30',
      '2024-00-00T24:00:60Z',
    ]) {
      expect(parseDateString(text), text).toEqual(scanDateString(text));
    }
  });

  it('matches PHP on relative phrases', () => {
    const php: Record<string, string> = {
      '15:30 today': '2024-01-15 00:00:00',
      'today 15:30': '2024-01-15 15:30:00',
      '10 March 2024 5pm': '2024-03-10 17:00:00',
      'last monday': '2024-01-08 00:00:00',
      'next monday': '2024-01-22 00:00:00',
      'monday next week': '2024-01-22 00:00:00',
      'first monday of next month': '2024-02-05 00:00:00',
      'last friday of january 2024': '2024-01-26 00:00:00',
      'noon yesterday': '2024-01-14 00:00:00',
      'first day of next month': '2024-02-01 12:00:00',
      '+1 week 2 days': '2024-01-24 12:00:00',
      '2024-03-10 17:00 EST': '2024-03-10 22:00:00',
      'Sat, 09 Mar 2024 15:30:00 +0000': '2024-03-09 15:30:00',
      '1700000000.5': '1699-11-30 00:05:00',
      '2024W11': '2024-03-11 00:00:00',
      'back of 7pm': '2024-01-15 19:15:00',
      '+1 month +1 weekday': '2024-02-16 12:00:00',
      '1 Jan 2024 00:00:00 GMT': '2024-01-01 00:00:00',
      '2024': '2024-01-15 20:24:00',
    };
    for (const [text, want] of Object.entries(php)) expect(strtotime(text), text).toBe(want);
  });

  it('refuses what PHP refuses', () => {
    for (const text of [
      'not a date',
      'next blursday',
      'today 10:00 11:00',
      '2024-01-01 2024-01-02',
      '2024-03-10 10:00 Mars/Olympus',
      '2024-03-10 UTC CET EST',
    ]) {
      expect(() => parseDateString(text), text).toThrow(DateParseError);
    }
    // a second zone is only a warning in PHP: the first one stands
    expect(parseDateString('2024-03-10 10:00 CET EST').zone).toMatchObject({ name: 'CET' });
  });

  it('does work linear in the text: one step per token, whatever the text repeats', () => {
    for (const text of [
      '+'.repeat(50_000),
      `1${' '.repeat(50_000)}x`,
      'Ab/'.repeat(20_000),
      '+1 day '.repeat(10_000),
      'mon '.repeat(10_000),
    ]) {
      let steps = 0;
      try {
        parseDateString(text, () => steps++);
      } catch (err) {
        expect(err).toBeInstanceOf(DateParseError);
      }
      expect(steps, text.slice(0, 8)).toBeLessThanOrEqual(text.length);
    }
  });
});

describe('diffDates', () => {
  it('borrows days as PHP 8.2 does', () => {
    const at = (s: string) => Date.parse(`${s}Z`);
    const fmt = (a: string, b: string) => {
      const iv = diffDates(at(a), 0, at(b), 0);
      return `${iv.invert ? '-' : '+'} ${iv.y} ${iv.m} ${iv.d} ${iv.h} ${iv.i} ${iv.s} ${iv.us} ${iv.days}`;
    };
    expect(fmt('2024-01-31T00:00:00', '2024-03-01T00:00:00')).toBe('+ 0 0 30 0 0 0 0 30');
    expect(fmt('2024-03-01T00:00:00', '2024-01-31T00:00:00')).toBe('- 0 1 1 0 0 0 0 30');
    expect(fmt('2024-01-15T12:00:00', '2024-03-10T08:30:15.250')).toBe('+ 0 1 23 20 30 15 250000 54');
    expect(fmt('2023-02-28T00:00:00', '2024-02-29T00:00:00')).toBe('+ 1 0 1 0 0 0 0 366');
  });
});
