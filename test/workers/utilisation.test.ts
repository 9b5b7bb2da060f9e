import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/index.js';
import { SlotUtilisation } from '../../src/workers/utilisation.js';

/** The job slots' utilisation (src/workers/utilisation.ts) on a hand-driven clock. */
function clocked(slots: number, windowS = 60) {
  let t = 1_000_000;
  const u = new SlotUtilisation(slots, windowS, () => t);
  return { u, at: (ms: number) => (t = 1_000_000 + ms) };
}

describe('SlotUtilisation', () => {
  it('counts busy slots and slot-seconds', () => {
    const { u, at } = clocked(4);
    u.begin();
    at(1_000);
    u.begin();
    expect(u.read()).toMatchObject({ slots: 4, busy: 2, busySeconds: 1 });
    at(3_000);
    u.end();
    // 1 slot for 1 s, then 2 slots for 2 s: 5 slot-seconds out of 4 slots x 3 s.
    expect(u.read()).toEqual({ slots: 4, busy: 1, busySeconds: 5, ratio: 5 / 12 });
  });

  it('the ratio covers the last window only', () => {
    const { u, at } = clocked(2, 10);
    // Both slots busy for the first 20 s, then idle.
    u.begin();
    u.begin();
    at(20_000);
    expect(u.read().ratio).toBe(1);
    u.end();
    u.end();
    at(25_000);
    // The window starts at a whole second, 9 to 10 s back: here 9 s, of them 4 busy.
    expect(u.read().ratio).toBeCloseTo(4 / 9, 5);
    at(40_000);
    expect(u.read()).toEqual({ slots: 2, busy: 0, busySeconds: 40, ratio: 0 });
    // Idle far longer than the window, then one slot busy for 2.5 s: 2.5 of 2 x 9.5 slot-seconds.
    at(500_000);
    u.begin();
    at(502_500);
    expect(u.read().ratio).toBeCloseTo(2.5 / 19, 5);
  });

  it('wrap holds a slot while the call runs, and frees it when it throws', async () => {
    const { u } = clocked(2);
    let release: () => void = () => {};
    const run = u.wrap((x: number) => new Promise<number>((r) => (release = () => r(x))));
    const running = run(7);
    expect(u.read().busy).toBe(1);
    release();
    expect(await running).toBe(7);
    expect(u.read().busy).toBe(0);
    await expect(u.wrap(() => Promise.reject(new Error('boom')))()).rejects.toThrow('boom');
    expect(u.read().busy).toBe(0);
  });

  it('shows in a worker registry as the slot gauges', async () => {
    const { u, at } = clocked(8);
    u.begin();
    u.begin();
    u.begin();
    at(2_000);
    const metrics = createMetrics();
    metrics.setProbes({ utilisation: () => u.read() });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^herald_worker_slots 8$/m);
    expect(text).toMatch(/^herald_worker_slots_busy 3$/m);
    expect(text).toMatch(/^herald_worker_busy_seconds_total 6$/m);
    expect(text).toMatch(/^herald_worker_utilisation_ratio 0.375$/m);
  });
});
