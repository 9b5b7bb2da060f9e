import { describe, expect, it } from 'vitest';
import { offsetMinutes } from '../../../../src/render/twig/runtime/date.js';
import { render } from '../helpers.js';

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset read straight from ICU, with no cache of offsets in front. */
function fromIcu(ms: number, tz: string): number {
  const dtf =
    formats.get(tz) ??
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  formats.set(tz, dtf);
  const p: Record<string, number> = {};
  for (const x of dtf.formatToParts(new Date(Math.floor(ms / 1000) * 1000)))
    if (x.type !== 'literal') p[x.type] = Number(x.value);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60000);
}

describe('offsetMinutes (cached by hour)', () => {
  it('agrees with ICU minute by minute across a year of DST changes, half-hour shifts included', () => {
    const zones = ['America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Europe/Dublin'];
    const differ: string[] = [];
    const check = (ms: number, tz: string) => {
      if (offsetMinutes(ms, tz) !== fromIcu(ms, tz)) differ.push(`${tz} ${new Date(ms).toISOString()}`);
    };
    for (const tz of zones) {
      // Every 179 minutes (so the minute within the hour varies), twice: the first pass fills the
      // cache, the second reads it; then minute by minute around each change the first pass saw.
      const changes: number[] = [];
      for (let pass = 0; pass < 2; pass++) {
        let before = Number.NaN;
        for (let ms = Date.UTC(2024, 0, 1); ms < Date.UTC(2025, 0, 1); ms += 179 * 60_000) {
          check(ms, tz);
          const now = fromIcu(ms, tz);
          if (pass === 0 && now !== before && !Number.isNaN(before)) changes.push(ms);
          before = now;
        }
      }
      expect(changes.length).toBeGreaterThan(1);
      for (const at of changes)
        for (let ms = at - 3 * 3_600_000; ms < at + 3_600_000; ms += 60_000) check(ms + 30_000, tz);
    }
    expect(differ.slice(0, 5)).toEqual([]);
  });

  it('agrees with ICU on historic offsets that change at odd seconds (local mean time)', () => {
    // Amsterdam kept +00:19:32 until 1937; Monrovia -00:44:30 until 1972.
    const cases: Array<[number, string]> = [];
    for (const tz of ['Europe/Amsterdam', 'Africa/Monrovia', 'Asia/Kolkata', 'America/Caracas'])
      for (let ms = Date.UTC(1890, 0, 1); ms < Date.UTC(1980, 0, 1); ms += 9_973 * 60_000)
        cases.push([ms, tz]);
    const differ = cases.filter(([ms, tz]) => offsetMinutes(ms, tz) !== fromIcu(ms, tz));
    expect(differ.slice(0, 5)).toEqual([]);
  });

  it('reads the first centuries and the years before 1 (Date.UTC would read 0-99 as 1900-1999)', () => {
    // Local mean time: Shanghai +08:05:43, New York -04:56:02.
    expect(offsetMinutes(new Date('0001-01-01T00:00:00Z').getTime(), 'Asia/Shanghai')).toBe(486);
    expect(offsetMinutes(new Date('0100-01-01T00:00:00Z').getTime(), 'America/New_York')).toBe(-296);
    expect(offsetMinutes(new Date('-000050-06-01T00:00:00Z').getTime(), 'America/New_York')).toBe(-296);
  });

  it('dates the first centuries in a zone as PHP 8.2 does', () => {
    // PHP 8.2 with Twig 3.5 renders these as 0001-01-01 and -0027-08-11 03 (local mean time:
    // +08:05:43 and -04:56:02). Unparenthesised, the minus would apply to the filter's output.
    expect(render("{{ (-62135596800)|date('Y-m-d', 'Asia/Shanghai') }}")).toBe('0001-01-01');
    expect(render("{{ (-63000000000)|date('Y-m-d H', 'America/New_York') }}")).toBe('-0027-08-11 03');
  });
});
