import { QueueEvents } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PIPE_QUEUE } from '../../src/queue/pipe-messages.js';
import { sentLogKey } from '../../src/redis/keys.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { WorkerProcesses, workerStarted } from '../helpers/worker-process.js';
import {
  createPipe,
  createRelayWorld,
  createTemplate,
  createWorld,
  deliveryStatuses,
  enqueueDirect,
  ok,
  type RelayServer,
  sendPipe,
  startRelayServer,
} from './helpers.js';

/**
 * Worker processes killed, stopped and run side by side (helpers/worker-process.ts starts them
 * from the compiled tree, so that a SIGKILL reaches the worker itself).
 */
let app: TestApp;
let relay: RelayServer;
let workers: WorkerProcesses;

const statuses = async (ids: readonly string[]) => deliveryStatuses(app, ids);

/**
 * A killed worker's jobs are taken over once its locks lapse: within about LOCK + 2 x STALLED; the
 * sent-log entries it had read but not written, once idle for SENT_LOG_CLAIM_IDLE_MS.
 */
const SHORT_LOCKS = {
  LOCK_DURATION_MS: '3000',
  STALLED_INTERVAL_MS: '500',
  RELAY_TIMEOUT_MS: '2500',
  SENT_LOG_CLAIM_IDLE_MS: '2000',
};

beforeAll(async () => {
  app = await startTestApp('worker_processes');
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
  it('loses nothing and duplicates nothing when a worker is killed with SIGKILL mid-run', async () => {
    relay.handler = (body, res) => setTimeout(() => ok(res, `up-${String(body.nonce)}`), 200);
    const storeWorld = await createWorld(app, {
      name: 'store bot',
      rate_capacity: 100_000,
      rate_per_second: 100_000,
    });
    const relayWorld = await createRelayWorld(app, relay.url, {
      name: 'relay bot',
      upstream_token: 'tok-kill',
      rate_capacity: 100_000,
      rate_per_second: 100_000,
    });
    const storePipe = await createPipe(app, storeWorld);
    const relayPipe = await createPipe(app, relayWorld);
    // Jobs the killed worker held are found by the survivor's stalled-job check: count them.
    const events = new QueueEvents(PIPE_QUEUE, {
      connection: { url: app.config.redisUrl },
      prefix: app.config.redisPrefix,
    });
    await events.waitUntilReady();
    let stalled = 0;
    events.on('stalled', () => {
      stalled++;
    });

    const ids: string[] = [];
    for (let i = 0; i < 150; i++) {
      ids.push(await sendPipe(app, storePipe.token, { content: `s${i}` }));
      ids.push(await sendPipe(app, relayPipe.token, { content: `r${i}` }));
    }
    // Only `a` runs at first; it is killed while the relay is holding one of its requests, so
    // it dies with jobs in flight for certain. Then `b` starts and must finish everything. Short
    // locks: the dead worker's jobs are taken over within about 4 s instead of 25.
    const a = workers.start(SHORT_LOCKS);
    await workerStarted(a);
    await expect.poll(() => relay.requests.length, { timeout: 20_000, interval: 10 }).toBeGreaterThan(0);
    a.child.kill('SIGKILL');
    expect(await a.exited).toBeNull(); // killed by the signal, not exited
    const b = workers.start(SHORT_LOCKS);
    await workerStarted(b);

    // Every message ends sent (the killed worker's jobs are taken over once their locks lapse).
    await expect
      .poll(async () => (await statuses(ids)).filter((s) => s !== 'sent').length, {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(0);
    const timeline = await app.res.store.messages.countByChannel(storeWorld.channelId);
    expect(timeline).toBe(150);
    // The kill really interrupted work: the survivor took over jobs the dead worker held.
    expect(stalled).toBeGreaterThan(0);
    await events.close();
    // The relay saw every relayed message, each under its own msg_id as nonce only.
    const relayIds = new Set(ids.filter((_, i) => i % 2 === 1));
    const perNonce = new Map<string, number>();
    for (const r of relay.requests)
      perNonce.set(String(r.body.nonce), (perNonce.get(String(r.body.nonce)) ?? 0) + 1);
    for (const id of relayIds) expect(perNonce.has(id)).toBe(true);
    for (const nonce of perNonce.keys()) expect(relayIds.has(nonce)).toBe(true);
    // Posted again (same nonce) only when the dead worker had posted it and its job was taken
    // over: at most twice, and no more such messages than jobs taken over.
    expect(Math.max(...perNonce.values())).toBeLessThanOrEqual(2);
    expect([...perNonce.values()].filter((n) => n === 2).length).toBeLessThanOrEqual(stalled);
    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
  }, 120_000);

  it('a worker killed holding sent records it could not write: another worker writes them, nothing sent twice', async () => {
    relay.requests.length = 0;
    relay.handler = (body, res) => ok(res, `up-${String(body.nonce)}`);
    const w = await createRelayWorld(app, relay.url, {
      name: 'record-holding bot',
      upstream_token: 'tok-held',
    });
    const p = await createPipe(app, w);
    // Worker `a` reaches the database through a proxy this test cuts; Redis stays up, so `a`
    // keeps relaying and completing jobs, and its flusher reads their sent records but cannot
    // write them: they stay pending to `a` in the stream's consumer group.
    const mongo = new URL(app.config.mongoUrl);
    const proxy = await startTcpProxy(mongo.hostname, Number(mongo.port || 27017));
    const viaProxy = new URL(app.config.mongoUrl);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    viaProxy.pathname = `/herald_test_${app.config.redisPrefix.replace(/^herald-test-/, '')}`;
    const claim = { SENT_LOG_CLAIM_IDLE_MS: '2000', DB_TIMEOUT_MS: '300' };
    /** Sent records read by some flusher and not yet written. */
    const pending = async () =>
      Number(
        ((await app.res.redis.xpending(sentLogKey(app.config.redisPrefix), 'recorders')) as [number])[0],
      );
    const a = workers.start({ ...claim, MONGO_URL: viaProxy.toString() });
    try {
      await workerStarted(a);
      // Warm: its caches hold the pipe, bot and channel, so it can deliver with the database away.
      const warm = await sendPipe(app, p.token, { content: 'warm' });
      await expect.poll(async () => (await statuses([warm]))[0], { timeout: 15_000 }).toBe('sent');
      proxy.cut();
      const ids = await Promise.all(
        Array.from({ length: 20 }, (_, i) => sendPipe(app, p.token, { content: `held ${i}` })),
      );
      await expect
        .poll(() => relay.requests.filter((r) => ids.includes(String(r.body.nonce))).length, {
          timeout: 15_000,
        })
        .toBe(20);
      await expect.poll(pending, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await statuses(ids)).not.toContain('sent');
      a.child.kill('SIGKILL');
      expect(await a.exited).toBeNull();
    } finally {
      proxy.restore();
      await proxy.close();
    }
    // `b` takes over what `a` read but never wrote, once it has been idle SENT_LOG_CLAIM_IDLE_MS.
    const b = workers.start(claim);
    await workerStarted(b);
    const ids = relay.requests.map((r) => String(r.body.nonce));
    await expect
      .poll(async () => (await statuses(ids)).filter((s) => s !== 'sent').length, {
        timeout: 30_000,
        interval: 200,
      })
      .toBe(0);
    // Every message reached the relay once: the jobs had completed, nothing ran again.
    expect(new Set(ids).size).toBe(ids.length);
    await expect.poll(pending, { timeout: 5_000 }).toBe(0);
    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
  }, 90_000);

  it('a template edited through the API reaches a running worker process that has it cached', async () => {
    const w = await createWorld(app, { name: 'template bot', rate_capacity: 1000, rate_per_second: 1000 });
    const tpl = await createTemplate(app, w, 'v1 {{ data.n }}');
    const p = await createPipe(app, w, { template_id: tpl });
    const worker = workers.start();
    await workerStarted(worker);
    const content = async (msgId: string) => {
      await expect.poll(() => statuses([msgId]), { timeout: 15_000, interval: 50 }).toEqual(['sent']);
      return (await app.res.store.messages.get(msgId))?.content;
    };
    expect(await content(await sendPipe(app, p.token, { n: 1 }))).toBe('v1 1');
    const edit = await app.request('POST', '/api/v3/template/update', {
      bot: w.bot.token,
      json: { id: tpl, content: 'v2 {{ data.n }}' },
    });
    expect(edit.status).toBe(200);
    expect(await content(await sendPipe(app, p.token, { n: 2 }))).toBe('v2 2');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 60_000);

  it('directory, pipe and bot changes made through the API reach a running worker process that has them cached', async () => {
    const w = await createWorld(app, { name: 'directory bot', rate_capacity: 1000, rate_per_second: 1000 });
    const p = await createPipe(app, w);
    const worker = workers.start();
    await workerStarted(worker);
    const outcome = async (msgId: string) => {
      await expect
        .poll(async () => (await statuses([msgId]))[0], { timeout: 15_000, interval: 50 })
        .toMatch(/^(sent|failed)$/);
      const rec = await app.res.store.deliveries.get(msgId);
      return rec?.status === 'sent' ? 'sent' : rec?.reason;
    };
    const admin = (path: string, json: Record<string, unknown>) =>
      app
        .request('POST', `/admin/api/${path}`, { admin: true, json })
        .then((r) => expect(r.status).toBe(200));
    // Sent once, so the worker holds the channel, pipe and bot in its caches.
    expect(await outcome(await sendPipe(app, p.token, { content: 'warm' }))).toBe('sent');
    // Each change is made by this (web) process; the worker learns it from Redis only.
    await admin('channel/update', {
      id: w.channelId,
      permission_overwrites: [{ role_id: 0, allow: 0, deny: 4096 }],
    });
    expect(await outcome(await sendPipe(app, p.token, { content: 'muted' }))).toBe('NO_SEND_PERMISSION');
    await admin('channel/update', { id: w.channelId, permission_overwrites: [] });
    expect(await outcome(await sendPipe(app, p.token, { content: 'allowed again' }))).toBe('sent');
    // A message accepted just before the pipe (then the bot) was turned off is refused by the
    // worker. (The API refuses new ones at once, so the job goes straight into the queue.)
    await admin('pipe/update', { id: p.id, enabled: false });
    const queuedJob = () => enqueueDirect(app, w, p.id, { input: 'accepted just before' });
    expect(await outcome(await queuedJob())).toBe('PIPE_DISABLED');
    await admin('pipe/update', { id: p.id, enabled: true });
    await admin('bot/update', { id: w.bot.id, enabled: false });
    expect(await outcome(await queuedJob())).toBe('BOT_UNAVAILABLE');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 60_000);
});
