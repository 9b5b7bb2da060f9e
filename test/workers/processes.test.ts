import { QueueEvents } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PIPE_QUEUE } from '../../src/queue/pipe-messages.js';
import { sentLogKey } from '../../src/redis/keys.js';
import { overBucket } from '../helpers/rate.js';
import { startRelayProcess } from '../helpers/relay-process.js';
import type { Proc } from '../helpers/spawn.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { WorkerProcesses, workerMetricsPort, workerStarted } from '../helpers/worker-process.js';
import {
  createPipe,
  createRelayWorld,
  createTemplate,
  createWorld,
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

const statuses = async (ids: readonly string[]) =>
  Promise.all(ids.map(async (id) => (await app.res.store.deliveries.get(id))?.status ?? 'none'));

/** A killed worker's jobs are taken over once its locks lapse: within about LOCK + 2 x STALLED. */
const SHORT_LOCKS = { LOCK_DURATION_MS: '3000', STALLED_INTERVAL_MS: '500', RELAY_TIMEOUT_MS: '2500' };

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
});
