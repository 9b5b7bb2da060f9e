import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { overBucket } from '../helpers/rate.js';
import { startRelayProcess } from '../helpers/relay-process.js';
import { freePort } from '../helpers/spawn.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { WorkerProcesses, workerStarted } from '../helpers/worker-process.js';
import { createPipe, createRelayWorld, sendPipe } from './helpers.js';

/**
 * Two worker processes over a Redis of this file's own, stopped (SIGSTOP: connections open, no
 * answers) twice while a bot's backlog waits for its turns: every turn that passes meanwhile is
 * claimed late, and together; the bucket's `sendable` count (ratelimit/token-bucket.lua) holds
 * them to capacity + rate x t, in line.
 */
let redis: ChildProcess;
let redisUrl: string;
let app: TestApp;
let workers: WorkerProcesses;

beforeAll(async () => {
  const port = await freePort();
  redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  redisUrl = `redis://127.0.0.1:${port}`;
  const probe = new Redis(redisUrl, { retryStrategy: () => 50 });
  probe.on('error', () => {});
  await probe.ping();
  probe.disconnect();
  app = await startTestApp('redis_stall', {}, { override: { REDIS_URL: redisUrl } });
  workers = new WorkerProcesses(app, { REDIS_URL: redisUrl, WORKER_CONCURRENCY: '8' });
});

afterAll(async () => {
  await workers?.killLeftovers();
  await app?.close();
  redis?.kill('SIGKILL');
});

it('a backlog whose turns pass while Redis is stopped still reaches the relay within burst + rate x t', async () => {
  const relay = await startRelayProcess();
  try {
    const w = await createRelayWorld(app, relay.url, {
      name: 'stalled redis bot',
      upstream_token: 'tok-stall',
      rate_capacity: 5,
      rate_per_second: 10,
    });
    const p = await createPipe(app, w);
    const started = [workers.start(), workers.start()];
    await Promise.all(started.map((x) => workerStarted(x)));
    const ids = await Promise.all(
      Array.from({ length: 40 }, (_, i) => sendPipe(app, p.token, { content: `m${i}` })),
    );
    // The first stall comes once the backlog waits in line; turns that pass in it are claimed
    // late. The second covers the turns those late claims were given (the old bucket's lapsed
    // reservations, which passed at once however late: the burst this test was written for).
    await expect
      .poll(async () => (await relay.arrivals()).length, { timeout: 20_000, interval: 20 })
      .toBeGreaterThanOrEqual(8);
    for (const pause of [2_500, 2_500]) {
      redis.kill('SIGSTOP');
      await sleep(pause);
      redis.kill('SIGCONT');
      await sleep(1_000);
    }
    await expect
      .poll(async () => (await relay.arrivals()).length, { timeout: 40_000, interval: 200 })
      .toBeGreaterThanOrEqual(40);
    const arrivals = await relay.arrivals();
    expect(new Set(arrivals.map((a) => a.nonce))).toEqual(new Set(ids));
    const times = arrivals.map((a) => a.at).sort((x, y) => x - y);
    // Dispatch jitter after the token was taken: 250 ms of refill, as in processes.test.ts.
    expect(overBucket(times, { capacity: 5, perSecond: 10 }, 250), JSON.stringify(times)).toBeNull();
  } finally {
    await relay.close();
  }
}, 90_000);
