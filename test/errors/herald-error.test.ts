import { describe, expect, it } from 'vitest';
import { HeraldError } from '../../src/errors/herald-error.js';

describe('HeraldError', () => {
  it("a 5xx's message, as logged, has no unfilled error id; the answer's names it", () => {
    const err = new HeraldError('SIGNING_SECRET_UNREADABLE');
    expect(err.message).toBe(
      "The pipe's signing secret cannot be decrypted: SECRETS_KEY is unset or changed",
    );
    expect(err.message).not.toContain('{');
    const answered = new HeraldError('SIGNING_SECRET_UNREADABLE', { error_id: 'e-1' });
    expect(answered.message).toContain('(error id e-1)');
    expect(answered.localizedMessage('en-US')).toContain('(error id e-1)');
  });
});
