import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Overview, readOverview } from '../../src/domain/overview.js';
import { workerHeartbeatsKey } from '../../src/redis/keys.js';
import { WorkerHeartbeat } from '../../src/workers/heartbeat.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { createTestChannel } from '../helpers/directory.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  answer,
  createPipe,
  createRelayWorld,
  createWorld,
  ok,
  type RelayServer,
  sendPipe,
  startRelayServer,
} from '../workers/helpers.js';

/*
 * GET /admin/api/overview with a worker running in this process, started as bin/worker.ts
 * starts one (the queue consumer and its heartbeat), on the real Redis and store.
 */
let app: TestApp;
let workers: RunningWorkers | undefined;
let heartbeat: WorkerHeartbeat | undefined;
let relay: RelayServer;

beforeAll(async () => {
  app = await startTestApp('admin_overview', {
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    WORKER_CONCURRENCY: '3',
    RETRY_BASE_MS: '50',
  });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
  heartbeat = new WorkerHeartbeat(
    app.res.redis,
    app.config.redisPrefix,
    app.config.workerConcurrency,
    app.res.log,
  );
  await heartbeat.start();
  relay = await startRelayServer();
});

afterAll(async () => {
  await workers?.close(2_000);
  await heartbeat?.stop();
  await relay?.close();
  await app?.close();
});

const overview = async (on: TestApp = app): Promise<Overview> => {
  const r = await on.request<Overview>('GET', '/admin/api/overview', { admin: true });
  expect(r.status, r.text).toBe(200);
  return r.body.data;
};
const record = (msgId: string) => app.res.store.deliveries.get(msgId);
const settledAs = (msgId: string, status: string) =>
  expect.poll(async () => (await record(msgId))?.status, { timeout: 15_000 }).toBe(status);

describe('GET /admin/api/overview', () => {
  it('shows the services, the queue, the worker and empty counts on a fresh install', async () => {
    const o = await overview();
    expect(o.services.redis.ok).toBe(true);
    expect(o.services.store.ok).toBe(true);
    expect(o.services.redis.latency_ms).toBeGreaterThanOrEqual(0);
    expect(o.services.store.latency_ms).toBeGreaterThanOrEqual(0);
    expect(o.queue).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
    expect(o.recent).toMatchObject({ window_s: 900, sent: 0, failed: 0, retried: 0 });
    expect(o.recent?.per_minute).toHaveLength(15);
    expect(o.dead_by_reason).toEqual([]);
    expect(o.workers).toEqual([
      {
        id: heartbeat?.info.id,
        host: heartbeat?.info.host,
        pid: process.pid,
        concurrency: 3,
        started_at: heartbeat?.info.started_at,
        last_seen_at: expect.any(Number),
      },
    ]);
    const noAdmin = await app.request('GET', '/admin/api/overview');
    expect(noAdmin.status).toBe(401);
  });

  it('counts sent, failed and retried messages as the worker settles them, and dead letters by reason', async () => {
    const w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
    const pipe = await createPipe(app, w);
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await sendPipe(app, pipe.token, { content: `m${i}` }));
    for (const id of sent) await settledAs(id, 'sent');

    const muted = await createTestChannel(app, w.guildId, {
      name: 'muted',
      permission_overwrites: [{ role_id: 0, allow: 0, deny: 4096 }],
    });
    const dead = [];
    for (let i = 0; i < 2; i++) {
      dead.push(await sendPipe(app, pipe.token, { content: 'muted' }, `&target_id=${muted.id}`));
    }
    for (const id of dead) await settledAs(id, 'failed');

    const r = await createRelayWorld(app, relay.url, { name: 'overview relay', upstream_token: 'up' });
    const rPipe = await createPipe(app, r);
    relay.handler = (body, res, n) =>
      n === 1 ? answer(res, 503, { code: 503, message: 'busy' }) : ok(res, `up-${String(body.nonce)}`);
    const retried = await sendPipe(app, rPipe.token, { content: 'retry me' });
    await settledAs(retried, 'sent');

    const before = Date.now();
    const o = await overview();
    const after = Date.now();
    expect(o.recent).toMatchObject({ sent: 4, failed: 2, retried: 1 });
    const perMinute = o.recent?.per_minute ?? [];
    const sum = (k: 'sent' | 'failed' | 'retried') => perMinute.reduce((s, m) => s + m[k], 0);
    expect([sum('sent'), sum('failed'), sum('retried')]).toEqual([4, 2, 1]);
    // Each minute at its start, oldest first, the current minute last.
    const minute = (t: number) => Math.floor(t / 60_000) * 60_000;
    expect([minute(before), minute(after)]).toContain(perMinute.at(-1)?.at);
    expect((perMinute.at(-1)?.at ?? 0) - (perMinute[0]?.at ?? 0)).toBe(14 * 60_000);
    expect(o.dead_by_reason).toEqual([{ reason: 'NO_SEND_PERMISSION', count: 2 }]);
    // Dead jobs stay in the queue for replay.
    expect(o.queue).toMatchObject({ failed: 2 });
  });

  it('hides and deletes the heartbeat of a worker gone silent', async () => {
    const key = workerHeartbeatsKey(app.config.redisPrefix);
    const silent = { id: 'gone:1:x', host: 'gone', pid: 1, concurrency: 1, started_at: 1 };
    await app.res.redis.hset(
      key,
      silent.id,
      JSON.stringify({ ...silent, last_seen_at: Date.now() - 16_000 }),
    );
    const o = await overview();
    expect(o.workers?.map((w) => w.id)).toEqual([heartbeat?.info.id]);
    expect(await app.res.redis.hexists(key, silent.id)).toBe(0);
  });

  it("goes by Redis's clock, not the hosts': a worker or reader whose clock is off an hour is still seen", async () => {
    const behind = new WorkerHeartbeat(
      app.res.redis,
      app.config.redisPrefix,
      2,
      app.res.log,
      60_000,
      () => Date.now() - 3_600_000,
    );
    await behind.start();
    try {
      const ids = (o: Overview) => (o.workers ?? []).map((w) => w.id).sort();
      const both = [heartbeat?.info.id, behind.info.id].sort();
      expect(ids(await overview())).toEqual(both);
      // A web process whose clock runs an hour ahead reads (and deletes) nothing wrongly.
      const ahead = { ...app.res, now: () => Date.now() + 3_600_000 };
      expect(ids(await readOverview(ahead))).toEqual(both);
      expect(ids(await overview())).toEqual(both);
    } finally {
      await behind.stop();
    }
  });

  it('no longer shows the worker once it stops', async () => {
    await workers?.close(2_000);
    workers = undefined;
    await heartbeat?.stop();
    expect((await overview()).workers).toEqual([]);
  });
});

describe('GET /admin/api/overview with a service down', () => {
  let redisProxy: TcpProxy;
  let mongoProxy: TcpProxy;
  let cutOff: TestApp;

  beforeAll(async () => {
    const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const mongoUrl = new URL(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/herald');
    redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
    mongoProxy = await startTcpProxy(mongoUrl.hostname, Number(mongoUrl.port || 27017));
    cutOff = await startTestApp('admin_overview_outage', {
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      MONGO_URL: `mongodb://127.0.0.1:${mongoProxy.port}/herald`,
      DB_TIMEOUT_MS: '300',
    });
  });

  afterAll(async () => {
    redisProxy?.restore();
    mongoProxy?.restore();
    mongoProxy?.resume();
    await cutOff?.close();
    await redisProxy?.close();
    await mongoProxy?.close();
  });

  it('answers with the store down (not answering): ok false, its parts null, within the deadline', async () => {
    mongoProxy.stall();
    const started = Date.now();
    const o = await overview(cutOff);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(o.services.store).toEqual({ ok: false, latency_ms: null });
    expect(o.services.redis.ok).toBe(true);
    expect(o.dead_by_reason).toBeNull();
    expect(o.queue).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
    expect(o.workers).toEqual([]);
    mongoProxy.resume();
  });

  it('answers with Redis down: ok false, its parts null', async () => {
    redisProxy.cut();
    const o = await overview(cutOff);
    expect(o.services.redis).toEqual({ ok: false, latency_ms: null });
    expect(o.queue).toBeNull();
    expect(o.recent).toBeNull();
    expect(o.workers).toBeNull();
    redisProxy.restore();
  });

  it('logs a part it could not read at debug, without a stack: open overviews poll every 5 s', async () => {
    const notRead = () => cutOff.logs.filter((l) => l.msg === 'overview part not read');
    redisProxy.cut();
    await overview(cutOff);
    redisProxy.restore();
    expect(notRead().length).toBeGreaterThan(0);
    expect(notRead().filter((l) => l.level !== 'debug')).toEqual([]);
    expect(JSON.stringify(notRead())).not.toContain('    at ');
  });
});
