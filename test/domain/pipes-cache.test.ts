import { describe, expect, it } from 'vitest';
import { LiveCache } from '../../src/domain/pipes/live-cache.js';
import { DependencyError } from '../../src/errors/index.js';

/** The rules LiveCache rests on, with a loader under the test's control (no services needed). */
function harness(options: { maxEntries?: number; freshMs?: number } = {}) {
  let now = 0;
  const db = new Map<string, string>();
  let down = false;
  let loads = 0;
  let gate: Promise<void> | undefined;
  const cache = new LiveCache<string>({
    maxEntries: options.maxEntries ?? 100,
    freshMs: options.freshMs ?? 1_000,
    now: () => now,
    async load(key) {
      loads++;
      const value = db.get(key) ?? null;
      if (gate) await gate;
      if (down) throw new DependencyError('database');
      return value;
    },
  });
  return {
    cache,
    db,
    setDown: (d: boolean) => {
      down = d;
    },
    advance: (ms: number) => {
      now += ms;
    },
    loads: () => loads,
    hold: () => {
      let release!: () => void;
      gate = new Promise((r) => {
        release = r;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

describe('LiveCache', () => {
  it('serves from memory while live; reads through (and keeps nothing) while offline', async () => {
    const h = harness();
    h.db.set('p', 'v1');
    expect(await h.cache.get('p')).toBe('v1'); // not live yet: not kept
    expect(h.cache.size).toBe(0);
    h.cache.goLive();
    await h.cache.get('p');
    await h.cache.get('p');
    expect(h.loads()).toBe(2);
    h.cache.goOffline();
    h.db.set('p', 'v2');
    expect(await h.cache.get('p')).toBe('v2');
    expect(h.cache.size).toBe(0);
  });

  it('caches "none" too, and an invalidation drops it', async () => {
    const h = harness();
    h.cache.goLive();
    expect(await h.cache.get('new')).toBeNull();
    h.db.set('new', 'created');
    expect(await h.cache.get('new')).toBeNull();
    h.cache.invalidate('new');
    expect(await h.cache.get('new')).toBe('created');
  });

  it('a load that started before an invalidation does not store what it read', async () => {
    const h = harness();
    h.cache.goLive();
    h.db.set('p', 'old');
    const release = h.hold();
    const inFlight = h.cache.get('p');
    h.db.set('p', 'new');
    h.cache.invalidate('p');
    release();
    expect(await inFlight).toBe('old'); // that request saw the old state...
    expect(await h.cache.get('p')).toBe('new'); // ...but it was not kept
  });

  it('concurrent misses share one load', async () => {
    const h = harness();
    h.cache.goLive();
    h.db.set('p', 'v');
    const release = h.hold();
    const all = Promise.all([h.cache.get('p'), h.cache.get('p'), h.cache.get('p')]);
    release();
    expect(await all).toEqual(['v', 'v', 'v']);
    expect(h.loads()).toBe(1);
  });

  it('reloads after freshMs, but serves the old entry while the database is down', async () => {
    const h = harness({ freshMs: 1_000 });
    h.cache.goLive();
    h.db.set('p', 'v1');
    await h.cache.get('p');
    h.advance(1_500);
    h.setDown(true);
    expect(await h.cache.get('p')).toBe('v1');
    await expect(h.cache.get('unknown')).rejects.toBeInstanceOf(DependencyError);
    h.setDown(false);
    h.db.set('p', 'v2');
    expect(await h.cache.get('p')).toBe('v2');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const h = harness({ maxEntries: 2 });
    h.cache.goLive();
    for (const k of ['a', 'b', 'c']) h.db.set(k, k);
    for (const k of ['a', 'b', 'c']) await h.cache.get(k);
    expect(h.cache.size).toBe(2);
    const before = h.loads();
    await h.cache.get('a');
    expect(h.loads()).toBe(before + 1);
  });
});
