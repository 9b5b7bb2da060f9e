import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/api/app.js';
import { compileEveryValidator } from '../../src/api/validation.js';

/** The compileValidator calls written in src/api, its definition aside. */
function validatorCallsInSource(): number {
  const dir = new URL('../../src/api/', import.meta.url).pathname;
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f !== 'validation.ts')
    .map((f) => readFileSync(join(dir, f), 'utf8').match(/\bcompileValidator\s*[<(]/g)?.length ?? 0)
    .reduce((a, b) => a + b, 0);
}

describe('request validators', () => {
  it('every schema the routes use compiles in strict mode (each is compiled on its first request)', () => {
    // The routes' modules make their validators as they load (src/api/app.ts loads them all):
    // every call in the source is among those compiled.
    const calls = validatorCallsInSource();
    expect(calls).toBeGreaterThan(40);
    expect(compileEveryValidator()).toBe(calls);
  });
});
