import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { overBucket } from '../helpers/rate.js';
import { startRelayProcess } from '../helpers/relay-process.js';
import type { Proc } from '../helpers/spawn.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { WorkerProcesses, workerMetricsPort, workerStarted } from '../helpers/worker-process.js';
import { createPipe, createRelayWorld, deliveryStatuses, sendPipe } from './helpers.js';

/**
 * One bot's limit held across two worker processes, judged at the relay. In the `rates` project,
 * beside the other rate files only: CPU starvation by other files' processes bunches arrivals.
 */
let app: TestApp;
let workers: WorkerProcesses;

const statuses = async (ids: readonly string[]) => deliveryStatuses(app, ids);

beforeAll(async () => {
  app = await startTestApp('worker_shared_limit');
  workers = new WorkerProcesses(app, { WORKER_CONCURRENCY: '8' });
});

afterEach(() => workers?.killLeftovers());

afterAll(async () => {
  await workers?.killLeftovers();
  await app?.close();
});

describe('worker processes', () => {
  it('two workers share one bot limit: the relay never sees more than burst + rate x t', {
    timeout: 60_000,
  }, async () => {
    // The relay stamps arrivals in a process of its own (helpers/relay-process.ts says why).
    const ownRelay = await startRelayProcess();
    onTestFinished(() => ownRelay.close());
    const w = await createRelayWorld(app, ownRelay.url, {
      name: 'shared limit bot',
      upstream_token: 'tok-shared',
      rate_capacity: 5,
      rate_per_second: 10,
    });
    const p = await createPipe(app, w);
    const a = workers.start();
    const b = workers.start();
    await Promise.all([workerStarted(a), workerStarted(b)]);
    const ids = await Promise.all(
      Array.from({ length: 60 }, (_, i) => sendPipe(app, p.token, { content: `m${i}` })),
    );
    await expect
      .poll(async () => (await statuses(ids)).filter((s) => s === 'sent').length, {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(60);
    const times = (await ownRelay.arrivals()).map((r) => r.at).sort((x, y) => x - y);
    expect(times).toHaveLength(60);
    // burst 5 + rate 10 per second, judged on the relay's arrival times over every window (not
    // on sends per second of the test's clock); arrival can bunch up by the dispatch's jitter
    // after the token was taken, so 250 ms of it (2.5 tokens) is allowed.
    expect(overBucket(times, { capacity: 5, perSecond: 10 }, 250), JSON.stringify(times)).toBeNull();
    // All 60 took at least (60 - burst 5) / rate 10 = 5.5 s, less 250 ms of dispatch jitter: a
    // faster refill, a bigger burst or a budget counted per process would have sent them sooner.
    expect((times.at(-1) as number) - (times[0] as number)).toBeGreaterThanOrEqual(5_500 - 250);
    // Both processes delivered: the limit was shared, not met by one worker alone.
    const sentBy = async (p: Proc) => {
      const port = workerMetricsPort(p);
      const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
      return Number(/^herald_pipe_messages_sent_total\{sink="relay"\} (\S+)$/m.exec(text)?.[1] ?? 0);
    };
    const [byA, byB] = [await sentBy(a), await sentBy(b)];
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
    expect(byA + byB).toBe(60);
    const aLog = a.out.join('');
    const bLog = b.out.join('');
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect([await a.exited, await b.exited]).toEqual([0, 0]);
    expect(aLog + bLog).not.toContain('tok-shared');
  });
});
