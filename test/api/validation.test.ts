import { describe, expect, it } from 'vitest';
import '../../src/api/app.js';
import { compileEveryValidator } from '../../src/api/validation.js';

describe('request validators', () => {
  it('every schema the routes use compiles in strict mode (each is compiled on its first request)', () => {
    // The routes' modules make their validators as they load (src/api/app.ts loads them all).
    expect(compileEveryValidator()).toBeGreaterThanOrEqual(46);
  });
});
