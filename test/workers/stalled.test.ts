import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../../src/store/index.js';
import { MAX_STALLED_COUNT, type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { WorkerProcesses } from '../helpers/worker-process.js';
import { createPipe, createRelayWorld, ok, type RelayServer, sendPipe, startRelayServer } from './helpers.js';

/**
 * A message whose worker dies every time (SIGKILL while the relay holds its request) fails with
 * reason STALLED once it has stalled more than MAX_STALLED_COUNT times, and is never delivered.
 * Short locks (LOCK_DURATION_MS, STALLED_INTERVAL_MS) let a killed worker's job be taken over in
 * about a second. Workers run as `node worker.js` from the compiled tree
 * (helpers/worker-process.ts), so that a SIGKILL reaches the worker itself.
 */
const TIMINGS = { LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '500', RELAY_TIMEOUT_MS: '1500' };

let app: TestApp;
let relay: RelayServer;
let inProcess: RunningWorkers | undefined;
let workers: WorkerProcesses;

beforeAll(async () => {
  app = await startTestApp('worker_stalled', { ...TIMINGS, METRICS_PORT: '0', HOST: '127.0.0.1' });
  relay = await startRelayServer();
  workers = new WorkerProcesses(app, TIMINGS);
});

afterAll(async () => {
  await workers?.killLeftovers();
  await inProcess?.close(2_000);
  await relay?.close();
  await app?.close();
});

describe('a message whose worker keeps dying', () => {
  it(`fails with STALLED after stalling ${MAX_STALLED_COUNT + 1} times, listed as dead, never delivered`, async () => {
    const runs = MAX_STALLED_COUNT + 1;
    // The relay holds the first `runs` requests (their workers are killed meanwhile) and would
    // accept any later one: a job run once more than allowed would be delivered, and caught.
    relay.handler = (body, res) => {
      if (relay.requests.length > runs) ok(res, `up-${String(body.nonce)}`);
    };
    const w = await createRelayWorld(app, relay.url, {
      name: 'stalling bot',
      upstream_token: 'tok-stalled',
    });
    const pipe = await createPipe(app, w);
    const msgId = await sendPipe(app, pipe.token, { content: 'crashes its workers' });

    // One worker at a time takes the job (after the previous one's lock lapsed), posts it, and
    // is killed while the relay holds the request.
    for (let run = 1; run <= runs; run++) {
      const worker = workers.start();
      await expect
        .poll(() => relay.requests.length, {
          timeout: 20_000,
          interval: 10,
          message: `run ${run}: ${worker.out.join('')} ${worker.err.join('')}`,
        })
        .toBe(run);
      worker.child.kill('SIGKILL');
      await worker.exited;
      expect(worker.child.signalCode).toBe('SIGKILL');
    }
    expect(await app.res.pipeRuntime.queue.getJob(msgId).then((j) => j?.getState())).toBe('active');

    // A healthy worker finds the job stalled once more than allowed and fails it.
    inProcess = await startWorkers(app.res, app.res.pipeRuntime.queue);
    await expect
      .poll(async () => (await app.res.store.deliveries.get(msgId))?.status, {
        timeout: 15_000,
        interval: 50,
      })
      .toBe('failed');
    const record = (await app.res.store.deliveries.get(msgId)) as DeliveryRecord;
    expect(record).toMatchObject({
      status: 'failed',
      reason: 'STALLED',
      code: 50002,
      sent_at: null,
      attempts: runs,
    });
    const job = await app.res.pipeRuntime.queue.getJob(msgId);
    expect(await job?.getState()).toBe('failed');
    expect(job?.failedReason).toContain('stalled');

    // Posted once per run, always under its own msg_id, and never answered: not delivered.
    expect(relay.requests.map((r) => r.body.nonce)).toEqual(Array.from({ length: runs }, () => msgId));

    const dead = await app.request<{ items: DeliveryRecord[] }>(
      'GET',
      '/admin/api/delivery/list?status=failed',
      {
        admin: true,
      },
    );
    expect(dead.body.data.items.find((d) => d.msg_id === msgId)).toMatchObject({ reason: 'STALLED' });
    const status = await app.request<Record<string, unknown>>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
      { headers: { Authorization: `Pipe ${pipe.token}` } },
    );
    expect(status.body.data).toMatchObject({ status: 'failed', error: { reason: 'STALLED', code: 50002 } });
    const metrics = await fetch(`http://127.0.0.1:${inProcess.metricsPort}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/herald_pipe_messages_failed_total\{reason="STALLED"\} 1/);
  }, 60_000);
});
