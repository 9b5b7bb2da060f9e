import { describe, expect, it } from 'vitest';
import {
  BOT_TOKEN_PREFIX,
  hashToken,
  issueToken,
  tokenMatches,
  tokenOwner,
} from '../../src/domain/tokens.js';

describe('tokens', () => {
  it('issues distinct prefixed tokens naming their owner, with a sha256 hash', () => {
    const a = issueToken(BOT_TOKEN_PREFIX, '123');
    const b = issueToken(BOT_TOKEN_PREFIX, '123');
    expect(a.token).not.toBe(b.token);
    expect(a.token).toMatch(/^hrb_123\.[A-Za-z0-9_-]{43}$/);
    expect(a.hash).toBe(hashToken(a.token));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenOwner(BOT_TOKEN_PREFIX, a.token)).toBe('123');
  });

  it('matches only the exact token', () => {
    const { token, hash } = issueToken(BOT_TOKEN_PREFIX, '9');
    expect(tokenMatches(token, hash)).toBe(true);
    expect(tokenMatches(`${token}x`, hash)).toBe(false);
    expect(tokenMatches(token, 'not-hex')).toBe(false);
  });

  it.each(['', 'hrb_', 'hrb_.abc', 'xyz_1.abc', 'hrb_1/2.abc', `hrb_1.${'a'.repeat(300)}`])(
    'names no owner for malformed %j',
    (t) => {
      expect(tokenOwner(BOT_TOKEN_PREFIX, t)).toBeNull();
    },
  );
});
