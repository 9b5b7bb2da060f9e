import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minuteOf } from '../../../src/domain/deliveries/recent-counts.js';
import type { DeliveryIds, SentOutcome } from '../../../src/domain/deliveries/records.js';
import { DependencyError } from '../../../src/errors/index.js';
import { deliveryCountsKey, relayAnswerKey, sentLogKey } from '../../../src/redis/keys.js';
import { SentLog } from '../../../src/workers/recovery/sent-log.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The write-behind log of `sent` records on the real Redis and store: records land, the stream
 * empties, a dead flusher's entries are taken over, and a store outage only delays records.
 */
let app: TestApp;
/** A second process's resources, whose store connection runs through a proxy a test can cut. */
let cutApp: TestApp;
let mongoProxy: TcpProxy;
const open: Array<{ close(): Promise<void> }> = [];

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function connection(): Redis {
  const r = new Redis(redisUrl, { maxRetriesPerRequest: null });
  open.push({ close: async () => void r.disconnect() });
  return r;
}

function sentLog(on: TestApp, timings: ConstructorParameters<typeof SentLog>[3] = {}): SentLog {
  const log = new SentLog(on.res, on.res.redis, connection(), { blockMs: 100, ...timings });
  open.push(log);
  return log;
}

let n = 0;
function message(): { ids: DeliveryIds; outcome: SentOutcome } {
  n += 1;
  return {
    ids: { msg_id: `sent-log-${n}-${Date.now()}`, bot_id: 'b1', pipe_id: 'p1', channel_id: 'c1' },
    outcome: {
      sent_at: 1_700_000_000_000 + n,
      upstream_msg_id: `up-${n}`,
      attempts: 2,
      not_permissions_mention: [],
    },
  };
}

const key = () => sentLogKey(app.config.redisPrefix);
const streamLength = () => app.res.redis.xlen(key());
const pendingCount = async () => {
  const [count] = (await app.res.redis.xpending(key(), 'recorders')) as [number];
  return count;
};
const record = (msgId: string) => app.res.store.deliveries.get(msgId);

beforeAll(async () => {
  app = await startTestApp('sent_log');
  const mongo = new URL(app.config.mongoUrl);
  mongoProxy = await startTcpProxy(mongo.hostname, Number(mongo.port || 27017));
  cutApp = await startTestApp(
    'sent_log_cut',
    { MONGO_URL: `mongodb://127.0.0.1:${mongoProxy.port}/herald`, DB_TIMEOUT_MS: '300' },
    { sharedWith: app },
  );
});

afterAll(async () => {
  mongoProxy?.restore();
  for (const o of open.reverse()) await o.close().catch(() => {});
  await cutApp?.close();
  await app?.close();
  await mongoProxy?.close();
});

describe('sent log', () => {
  it('the appends of one turn: every entry in order, each relay answer kept, one count per message not folded', async () => {
    const log = sentLog(app); // not started: the entries stay in the stream
    const before = await streamLength();
    // Sent now: a minute's count hash expires COUNTS_KEEP_MS after the minute.
    const now = Date.now();
    const [a, b, c] = [message(), message(), message()].map((m) => ({
      ...m,
      outcome: { ...m.outcome, sent_at: now },
    })) as [ReturnType<typeof message>, ReturnType<typeof message>, ReturnType<typeof message>];
    const folded = { ...c.outcome, folded_into: a.ids.msg_id };
    const countKey = deliveryCountsKey(app.config.redisPrefix, minuteOf(now));
    const counted = Number((await app.res.redis.hget(countKey, 'sent')) ?? 0);
    await Promise.all([
      log.append(a.ids, a.outcome, { relayed: true }),
      log.append(b.ids, b.outcome),
      log.append(c.ids, folded, { relayed: true }),
    ]);
    expect(await streamLength()).toBe(before + 3);
    const entries = await app.res.redis.xrevrange(key(), '+', '-', 'COUNT', 3);
    const msgIds = entries.reverse().map(([, fields]) => JSON.parse(fields[1] as string).ids.msg_id);
    expect(msgIds).toEqual([a.ids.msg_id, b.ids.msg_id, c.ids.msg_id]);
    const answer = (id: string) => relayAnswerKey(app.config.redisPrefix, id);
    expect(JSON.parse((await app.res.redis.get(answer(a.ids.msg_id))) ?? 'null')).toEqual(a.outcome);
    expect(await app.res.redis.exists(answer(b.ids.msg_id))).toBe(0);
    expect(await app.res.redis.pttl(answer(c.ids.msg_id))).toBeGreaterThan(6 * 24 * 3_600_000);
    // a and b counted (the folded c went out inside a, which is counted itself).
    expect(Number(await app.res.redis.hget(countKey, 'sent'))).toBe(counted + 2);
    expect(await app.res.redis.pttl(countKey)).toBeGreaterThan(0);
  });

  it('a turn whose write fails fails every append of it, as a dependency error', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    down.on('error', () => {});
    open.push({ close: async () => void down.disconnect() });
    const log = new SentLog(app.res, down, connection());
    const [a, b] = [message(), message()];
    const results = await Promise.allSettled([
      log.append(a.ids, a.outcome, { relayed: true }),
      log.append(b.ids, b.outcome),
    ]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(DependencyError);
    }
  });

  it('writes the records behind the jobs and empties the stream', async () => {
    const log = sentLog(app);
    await log.start();
    const messages = [message(), message(), message()];
    for (const m of messages) await log.append(m.ids, m.outcome);
    for (const m of messages) {
      await expect.poll(async () => (await record(m.ids.msg_id))?.status, { timeout: 10_000 }).toBe('sent');
      expect(await record(m.ids.msg_id)).toMatchObject({
        ...m.ids,
        status: 'sent',
        sent_at: m.outcome.sent_at,
        upstream_msg_id: m.outcome.upstream_msg_id,
        attempts: 2,
      });
    }
    await expect.poll(streamLength, { timeout: 5_000 }).toBe(0);
    expect(await pendingCount()).toBe(0);
    await log.close();
    await log.close(); // twice is safe
  });

  it('makes its consumer group again when the stream went away with it (Redis restarted empty)', async () => {
    const log = sentLog(app, { retryMs: 50 });
    await log.start();
    await app.res.redis.del(key());
    // The next append makes a bare stream, without the group.
    const m = message();
    await log.append(m.ids, m.outcome);
    await expect.poll(async () => (await record(m.ids.msg_id))?.status, { timeout: 10_000 }).toBe('sent');
    await expect.poll(streamLength, { timeout: 5_000 }).toBe(0);
    expect(app.logText()).toContain('sent-record stream lost its consumer group');
    await log.close();
  });

  it('an outcome appended just before close() is in the store once close() resolves', async () => {
    const log = sentLog(app, { blockMs: 2_000 });
    await log.start();
    const m = message();
    await log.append(m.ids, m.outcome);
    await log.close();
    expect((await record(m.ids.msg_id))?.status).toBe('sent');
    expect(await streamLength()).toBe(0);
  });

  it('close() ends while other workers keep appending (the drain is bounded)', async () => {
    const log = sentLog(app, { closeDrainMs: 300 });
    await log.start();
    // Other workers' appends, ten every millisecond or so, for as long as the test runs: there is
    // always something unread.
    let producing = true;
    const other = connection();
    const producer = (async () => {
      while (producing) {
        const batch = other.pipeline();
        for (let i = 0; i < 10; i++)
          batch.xadd(sentLogKey(app.config.redisPrefix), '*', 'r', JSON.stringify(message()));
        await batch.exec();
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    try {
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      await Promise.race([
        log.close(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('close() did not end')), 5_000)),
      ]);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      producing = false;
      await producer;
    }
    // What is left is written by the next flusher.
    const next = sentLog(app);
    await next.start();
    await expect.poll(streamLength, { timeout: 15_000 }).toBe(0);
    await next.close();
  });

  it('close() ends a blocking read at once instead of waiting out its block time', async () => {
    const log = sentLog(app, { blockMs: 5_000 });
    await log.start();
    // One entry written, then the flusher goes back to its blocking read.
    const m = message();
    await log.append(m.ids, m.outcome);
    await expect.poll(async () => (await record(m.ids.msg_id))?.status, { timeout: 5_000 }).toBe('sent');
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await log.close();
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('takes over entries a dead flusher read but never wrote', async () => {
    const m = message();
    await app.res.redis.xgroup('CREATE', key(), 'recorders', '0', 'MKSTREAM').catch(() => {});
    const writer = sentLog(app);
    await writer.append(m.ids, m.outcome);
    // A flusher that read the entry and died before writing it.
    await app.res.redis.xreadgroup('GROUP', 'recorders', 'dead-worker', 'COUNT', 10, 'STREAMS', key(), '>');
    expect(await pendingCount()).toBe(1);
    const rescuer = sentLog(app, { claimIdleMs: 300, claimEveryMs: 100, forgetIdleMs: 300 });
    await rescuer.start();
    await expect.poll(async () => (await record(m.ids.msg_id))?.status, { timeout: 10_000 }).toBe('sent');
    await expect.poll(pendingCount, { timeout: 5_000 }).toBe(0);
    // The dead consumer, with nothing pending and silent, is forgotten.
    await expect
      .poll(
        async () =>
          ((await app.res.redis.xinfo('CONSUMERS', key(), 'recorders')) as unknown[][]).map((c) => c[1]),
        { timeout: 5_000 },
      )
      .not.toContain('dead-worker');
    await rescuer.close();
  });

  it('keeps records in Redis while the store is down and writes them once it is back', async () => {
    const log = sentLog(cutApp, { retryMs: 100 });
    await log.start();
    mongoProxy.cut();
    const m = message();
    await log.append(m.ids, m.outcome); // Redis is up: the job would complete now
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await record(m.ids.msg_id)).toBeNull();
    expect(await streamLength()).toBe(1);
    mongoProxy.restore();
    await expect.poll(async () => (await record(m.ids.msg_id))?.status, { timeout: 15_000 }).toBe('sent');
    await expect.poll(streamLength, { timeout: 5_000 }).toBe(0);
    await log.close();
  });
});
