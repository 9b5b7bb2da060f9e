import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { WorkerProcesses, workerStarted } from '../helpers/worker-process.js';
import {
  createPipe,
  createRelayWorld,
  deliveryStatuses,
  ok,
  type RelayServer,
  sendPipe,
  startRelayServer,
} from './helpers.js';

/** A worker process told to stop (SIGTERM): what it finishes, what it leaves to the next worker. */
let app: TestApp;
let relay: RelayServer;
let workers: WorkerProcesses;

const statuses = async (ids: readonly string[]) => deliveryStatuses(app, ids);

beforeAll(async () => {
  app = await startTestApp('worker_shutdown');
  relay = await startRelayServer();
  workers = new WorkerProcesses(app, { WORKER_CONCURRENCY: '8' });
});

// Workers share the file's queue: one left by a failed test would take the next test's jobs.
afterEach(() => workers?.killLeftovers());

afterAll(async () => {
  await workers?.killLeftovers();
  await relay?.close();
  await app?.close();
});

describe('worker processes', () => {
  it('SIGTERM stops fetching, finishes in-flight messages, then exits 0', async () => {
    // The relay holds its answers until the test lets them go: the drain lasts as long as the
    // test needs, however slow the machine (a fixed 2 s hold could end before the test looked).
    const held: Array<() => void> = [];
    relay.handler = (body, res) => held.push(() => ok(res, `up-${String(body.nonce)}`));
    const w = await createRelayWorld(app, relay.url, {
      name: 'drain bot',
      upstream_token: 'tok-drain',
    });
    const p = await createPipe(app, w);
    const worker = workers.start({ SHUTDOWN_TIMEOUT_MS: '60000' });
    await workerStarted(worker);
    const ids = await Promise.all(
      Array.from({ length: 4 }, (_, i) => sendPipe(app, p.token, { content: `d${i}` })),
    );
    await expect
      .poll(() => relay.requests.filter((r) => ids.includes(String(r.body.nonce))).length, {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(4);
    worker.child.kill('SIGTERM');
    // Messages accepted while it drains (it has free job slots) are left to other workers.
    await expect
      .poll(() => worker.out.join(''), { timeout: 5_000, interval: 20 })
      .toContain('"shutting down"');
    const later = await Promise.all(
      Array.from({ length: 3 }, (_, i) => sendPipe(app, p.token, { content: `later${i}` })),
    );
    expect(worker.child.exitCode).toBeNull();
    for (const answer of held.splice(0)) answer();
    expect(await worker.exited).toBe(0);
    expect(await statuses(ids)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const nonces = relay.requests.map((r) => String(r.body.nonce));
    expect(later.filter((id) => nonces.includes(id))).toEqual([]);
    const states = await Promise.all(later.map((id) => app.res.pipeRuntime.queue.getJobState(id)));
    expect(states).toEqual(['waiting', 'waiting', 'waiting']);

    // The next worker takes them.
    relay.handler = (body, res) => ok(res, `up-${String(body.nonce)}`);
    const next = workers.start();
    await workerStarted(next);
    await expect
      .poll(() => statuses(later), { timeout: 15_000, interval: 50 })
      .toEqual(['sent', 'sent', 'sent']);
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  }, 60_000);

  it('SIGTERM with a message still in flight at SHUTDOWN_TIMEOUT_MS: exits 0 on time, and another worker sends it', async () => {
    // Short locks so that the message left behind is taken over within about 4 s; the relay
    // timeout (below the lock) leaves the signal 2.9 s to reach the worker before it fires.
    const timings = { LOCK_DURATION_MS: '3500', STALLED_INTERVAL_MS: '500', RELAY_TIMEOUT_MS: '3000' };
    // The first copy gets no answer while its worker lives (answered once it has exited): it is
    // in flight at the deadline however slow the machine.
    let hold = true;
    let exited: Promise<unknown> = Promise.resolve();
    relay.handler = (body, res) => {
      if (body.content === 'held at shutdown' && hold) return void exited.then(() => ok(res, 'late'));
      ok(res, `up-${String(body.nonce)}`);
    };
    const w = await createRelayWorld(app, relay.url, {
      name: 'held bot',
      upstream_token: 'tok-held',
    });
    const p = await createPipe(app, w);
    const worker = workers.start({ ...timings, SHUTDOWN_TIMEOUT_MS: '100' });
    exited = worker.exited;
    await workerStarted(worker);
    const msgId = await sendPipe(app, p.token, { content: 'held at shutdown' });
    await expect
      .poll(() => relay.requests.some((r) => r.body.nonce === msgId), { timeout: 10_000, interval: 20 })
      .toBe(true);
    hold = false;
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    const log = worker.out.join('');
    // It gave up waiting at its deadline and shut down cleanly, rather than being cut off by
    // the last-resort exit timer (SHUTDOWN_TIMEOUT_MS + 1 s) with its connections still open.
    // Judged by the worker's own log times: the test's clock also counts starting the process.
    const at = (msg: string) => {
      const line = log.split('\n').find((l) => l.includes(`"msg":"${msg}`));
      expect(line, log).toBeDefined();
      return Date.parse((JSON.parse(line as string) as { time: string }).time);
    };
    const stopping = at('shutting down');
    expect(at('in-flight messages did not finish in time')).toBeGreaterThanOrEqual(stopping + 100);
    expect(at('shut down cleanly')).toBeLessThan(stopping + 1_100);
    expect(log).not.toContain('shutdown timed out');

    const next = workers.start(timings);
    await workerStarted(next);
    await expect.poll(() => statuses([msgId]), { timeout: 20_000, interval: 100 }).toEqual(['sent']);
    expect(
      new Set(relay.requests.filter((r) => r.body.content === 'held at shutdown').map((r) => r.body.nonce)),
    ).toEqual(new Set([msgId]));
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  }, 60_000);

  it('SIGTERM with a relay answer arriving just after the deadline: still exits, and another worker completes it', async () => {
    // The answer reaches the worker after it cut its connection at SHUTDOWN_TIMEOUT_MS. BullMQ
    // 5.81 then asked Redis again, without end and without yielding, to complete the job: the
    // process spun at 100 % CPU and never exited (its exit timer could not fire either).
    const timings = { LOCK_DURATION_MS: '3500', STALLED_INTERVAL_MS: '500', RELAY_TIMEOUT_MS: '3000' };
    let release: (() => void) | undefined;
    relay.handler = (body, res) => {
      if (body.content === 'answered after the deadline' && release === undefined) {
        release = () => ok(res, 'after the deadline');
        return;
      }
      ok(res, `up-${String(body.nonce)}`);
    };
    const w = await createRelayWorld(app, relay.url, { name: 'late answer bot', upstream_token: 'tok-late' });
    const p = await createPipe(app, w);
    const worker = workers.start({ ...timings, SHUTDOWN_TIMEOUT_MS: '100' });
    await workerStarted(worker);
    const msgId = await sendPipe(app, p.token, { content: 'answered after the deadline' });
    await expect.poll(() => release !== undefined, { timeout: 10_000, interval: 20 }).toBe(true);
    worker.child.kill('SIGTERM');
    await expect
      .poll(() => worker.out.join('').includes('in-flight messages did not finish in time'), {
        timeout: 10_000,
        interval: 5,
      })
      .toBe(true);
    release?.();
    const code = await Promise.race([
      worker.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000)),
    ]);
    expect(code, worker.out.join('').slice(-2_000)).toBe(0);

    const next = workers.start(timings);
    await workerStarted(next);
    await expect.poll(() => statuses([msgId]), { timeout: 20_000, interval: 100 }).toEqual(['sent']);
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  }, 60_000);
});
