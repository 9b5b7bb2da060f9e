import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/api/pipe-request.js';
import { seeded } from '../helpers/seeded.js';

/** What URLSearchParams makes of a query, in parseQuery's shape (repeated names as lists). */
function reference(qs: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(qs)) {
    const seen = Object.hasOwn(out, k) ? out[k] : undefined;
    const next = seen === undefined ? v : Array.isArray(seen) ? [...seen, v] : [seen, v];
    Object.defineProperty(out, k, { value: next, writable: true, enumerable: true, configurable: true });
  }
  return out;
}

describe('parseQuery', () => {
  // Seconds alone, far longer beside other files on a loaded machine (docs/testing.md).
  it('reads 20,000 random query strings exactly as URLSearchParams does', () => {
    const next = seeded(20261124);
    const alphabet = [
      'a',
      'b',
      't',
      '_',
      '.',
      '=',
      '&',
      '&',
      '=',
      '%',
      '2',
      '0',
      'F',
      '+',
      '~',
      '-',
      '中',
      '%e4',
    ];
    const names = ['access_token', 'type', '__proto__', 'constructor', 'toString', 'nonce'];
    for (let i = 0; i < 20_000; i++) {
      let qs = '';
      const length = Math.floor(next() * 24);
      for (let j = 0; j < length; j++) {
        qs +=
          next() < 0.15
            ? names[Math.floor(next() * names.length)]
            : alphabet[Math.floor(next() * alphabet.length)];
      }
      const got = parseQuery(qs);
      expect({ ...got }, qs).toEqual({ ...reference(qs) });
      expect(Object.getPrototypeOf(got), qs).toBe(Object.prototype);
    }
  }, 60_000);

  it('keeps the plain split and the decoding path apart: only % or + sends a query to URLSearchParams', () => {
    expect(parseQuery('access_token=hrp_1.abc&&nonce&type=9&type=10')).toEqual({
      access_token: 'hrp_1.abc',
      nonce: '',
      type: ['9', '10'],
    });
    expect(parseQuery('nonce=a+b%21&x=%E4%B8%AD')).toEqual({ nonce: 'a b!', x: '中' });
    expect(parseQuery('')).toEqual({});
  });
});
