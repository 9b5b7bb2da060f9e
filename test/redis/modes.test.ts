import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRecordLock } from '../../src/locks/record-lock.js';
import { PIPE_JOB_NAME } from '../../src/queue/pipe-messages.js';
import { pipeProbes } from '../../src/queue/probes.js';
import { lockKey, pipeJobKey, relayAnswerKey } from '../../src/redis/keys.js';
import { keySlot, partitionOfBot, pipeQueueNames, queueSlotTag } from '../../src/redis/partitions.js';
import type { DeliveryRecord } from '../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { ensureRedisMode, type RedisModeName, redisModeEnv } from '../helpers/redis-modes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  createPipe,
  createRelayWorld,
  createTemplate,
  createWorld,
  directJobData,
  type RelayServer,
  sendPipe,
  startRelayServer,
  type World,
} from '../workers/helpers.js';

/*
 * The delivery path (ingest with an Idempotency-Key and a capture, the bot's bucket with a
 * reservation, grouping, the sent log, input drops, status reads, dead letters and replay) on
 * each Redis setup: a partitioned queue on standalone, a 3-master cluster with 4 partitions, and
 * a master behind Sentinel. The setups are started by scripts/dev-services.sh (ensureRedisMode).
 * On the cluster every Herald Lua script must have run (SCRIPT EXISTS on some master): a script
 * whose keys left its slot fails with CROSSSLOT (or "non local key") and fails the journey.
 */

const SRC = new URL('../../src/', import.meta.url);
function luaFiles(dir = SRC.pathname): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return luaFiles(path);
    return name.endsWith('.lua') ? [path] : [];
  });
}

/**
 * Scripts a cluster never runs: their keys span slots by design, and on a cluster their callers
 * send the commands one by one instead (the sent log's appends of a turn: sent-log.ts).
 */
const OFF_CLUSTER_ONLY = new Set(['workers/recovery/sent-log-append.lua']);

const DIGEST = '{{ _group.count }} in {{ _group.key }}:{% for i in _group.items %} {{ i.alert }}{% endfor %}';

const SETUPS: Array<[RedisModeName, number]> = [
  ['standalone', 3],
  ['cluster', 4],
  ['sentinel', 1],
];

describe.each(SETUPS)('on %s Redis with %i partition(s)', (mode, partitions) => {
  let app: TestApp;
  let workers: RunningWorkers;
  let relay: RelayServer | undefined;
  const worlds: World[] = [];

  const record = (msgId: string) => app.res.store.deliveries.get(msgId);
  async function settled(msgId: string, timeout = 20_000): Promise<DeliveryRecord> {
    await expect
      .poll(async () => (await record(msgId))?.status, { timeout, interval: 50 })
      .toMatch(/^(sent|failed|folded)$/);
    return (await record(msgId)) as DeliveryRecord;
  }

  beforeAll(async () => {
    ensureRedisMode(mode);
    app = await startTestApp(
      `modes_${mode}`,
      {
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
        WORKER_CONCURRENCY: '4',
        RETRY_BASE_MS: '50',
        // Relay sends note their requests (asking-note.lua, a script of two keys in one slot).
        DELIVERY_IN_DOUBT: 'hold',
      },
      { override: redisModeEnv(mode, partitions) },
    );
    workers = await startWorkers(app.res, app.res.pipeRuntime.queues);
    for (let i = 0; i < 3; i++) {
      // The last bot's budget is small: its messages wait for it (the reserving bucket script).
      const budget =
        i === 2 ? { rate_capacity: 2, rate_per_second: 4 } : { rate_capacity: 1000, rate_per_second: 1000 };
      worlds.push(await createWorld(app, budget));
    }
  });

  afterAll(async () => {
    if (process.env.MODES_DEBUG) {
      console.log(JSON.stringify(app.logs.filter((l) => l.msg !== 'request').slice(0, 60)));
    }
    await workers?.close(2_000);
    await relay?.close();
    await app?.close();
  });

  it('names one queue per partition and sends each bot to one of them', () => {
    const names = pipeQueueNames(app.config);
    expect(app.res.pipeRuntime.queues.all.map((q) => q.name)).toEqual(names);
    expect(names).toHaveLength(partitions);
    if (mode === 'sentinel' && partitions === 1) expect(names).toEqual(['pipe-messages']);
    // A partition's keys share one slot (BullMQ's scripts need it on a cluster).
    for (const name of names.filter((n) => n.startsWith('{'))) {
      const queue = app.res.pipeRuntime.queues.all[names.indexOf(name)]!;
      expect(
        new Set(
          [queue.keys.wait, queue.keys.active, queue.keys.delayed, queue.toKey('x')].map((k) =>
            keySlot(String(k)),
          ),
        ).size,
      ).toBe(1);
    }
  });

  it('delivers every message of several bots once, with reads, idempotency and captures', async () => {
    const pipes = await Promise.all(worlds.map((w) => createPipe(app, w, { capture: true })));
    const sent: string[][] = worlds.map(() => []);
    for (let n = 0; n < 6; n++) {
      for (const [i, pipe] of pipes.entries())
        sent[i]!.push(await sendPipe(app, pipe.token, { content: `m${n}` }));
    }
    // The same Idempotency-Key twice: one message.
    const headers = { 'Idempotency-Key': `build-${mode}` };
    const path = `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(pipes[0]!.token)}`;
    const once = await app.request<{ msg_id: string }>('POST', path, { json: { content: 'idem' }, headers });
    const twice = await app.request<{ msg_id: string }>('POST', path, { json: { content: 'idem' }, headers });
    expect(once.status).toBe(200);
    expect(twice.body.data.msg_id).toBe(once.body.data.msg_id);

    const records = await Promise.all([...sent.flat(), once.body.data.msg_id].map((id) => settled(id)));
    expect(records.every((r) => r.status === 'sent')).toBe(true);
    // Each bot's messages reached its channel once each (their order is not promised: jobs of one
    // queue run WORKER_CONCURRENCY at a time, and a bot's budget puts some off).
    for (const [i, w] of worlds.entries()) {
      const list = await app.request<{ items: Array<{ id: string }> }>(
        'GET',
        `/api/v3/message/list?target_id=${w.channelId}&page_size=50`,
        { bot: w.bot.token },
      );
      const ids = list.body.data.items.map((m) => m.id).reverse();
      expect(ids.filter((id) => sent[i]!.includes(id)).sort()).toEqual([...sent[i]!].sort());
      // Its jobs are in its partition.
      const queue = app.res.pipeRuntime.queues.of(w.bot.id);
      expect(await queue.getJob(sent[i]![0]!)).toBeDefined();
    }
    const status = await app.request<{ status: string }>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${sent[2]![5]}`,
      { bot: worlds[2]!.bot.token },
    );
    expect(status.body.data.status).toBe('sent');
    const captures = await app.request<{ items: unknown[] }>(
      'GET',
      `/admin/api/pipe/captures?id=${pipes[1]!.id}`,
      {
        admin: true,
      },
    );
    expect(captures.body.data.items.length).toBeGreaterThan(0);
    const cleared = await app.request('POST', '/admin/api/pipe/captures/clear', {
      admin: true,
      json: { id: pipes[1]!.id },
    });
    expect([200, 404]).toContain(cleared.status);
    expect(await app.res.pipeRuntime.messages.countUnfinishedWithTemplate('none')).toEqual({
      count: 0,
      capped: false,
    });
    const overview = await app.request<Record<string, unknown>>('GET', '/admin/api/overview', {
      admin: true,
    });
    expect(overview.status).toBe(200);
  });

  it('a change made through one web process is in force in another within moments (the pub/sub feeds)', async () => {
    const other = await startTestApp(
      `modes_${mode}_b`,
      {},
      { sharedWith: app, override: redisModeEnv(mode, partitions) },
    );
    try {
      const pipe = await createPipe(app, worlds[0]!);
      const send = () =>
        other.request('POST', `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(pipe.token)}`, {
          json: { content: 'feed' },
        });
      expect((await send()).status).toBe(200);
      await app.request('POST', '/admin/api/pipe/update', {
        admin: true,
        json: { id: pipe.id, enabled: false },
      });
      // A cluster relays a PUBLISH to the other nodes over its bus: the change reaches the other
      // process a moment later, not always before the next request (a 401 seen once after the
      // re-enable under load).
      const settles = { timeout: 2_000, interval: 20 };
      await expect.poll(async () => (await send()).status, settles).toBe(401);
      await app.request('POST', '/admin/api/pipe/update', {
        admin: true,
        json: { id: pipe.id, enabled: true },
      });
      await expect.poll(async () => (await send()).status, settles).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('relays a message once, its request noted first (DELIVERY_IN_DOUBT=hold)', async () => {
    relay = await startRelayServer();
    const w = await createRelayWorld(app, relay.url, {
      name: `relay ${mode}`,
      upstream_token: `tok-${mode}`,
    });
    const pipe = await createPipe(app, w);
    const id = await sendPipe(app, pipe.token, { content: 'relayed' });
    expect(await settled(id)).toMatchObject({ status: 'sent', upstream_msg_id: `up-${id}` });
    expect(relay.requests.map((r) => r.body.nonce)).toEqual([id]);
  });

  it.runIf(partitions > 1)(
    'relays a job still in the partition its bot had before REDIS_QUEUE_PARTITIONS changed',
    async () => {
      relay ??= await startRelayServer();
      const w = await createRelayWorld(app, relay.url, {
        name: `moved ${mode}`,
        upstream_token: `tok-m-${mode}`,
      });
      const pipe = await createPipe(app, w);
      // Queued where another partition count would have put it: not its bot's partition now.
      const own = partitionOfBot(app.config, w.bot.id);
      const queue = app.res.pipeRuntime.queues.all[(own + 1) % partitions]!;
      const job = directJobData(w, pipe.id, { msg_id: `moved-${mode}-${Date.now()}` });
      await queue.add(PIPE_JOB_NAME, job, { jobId: job.msg_id, attempts: 3 });
      expect(await settled(job.msg_id)).toMatchObject({
        status: 'sent',
        upstream_msg_id: `up-${job.msg_id}`,
      });
      expect(relay.requests.filter((r) => r.body.nonce === job.msg_id)).toHaveLength(1);
      // Its input and its kept answer went once it completed (drop-inputs.ts), beside its hash.
      const key = pipeJobKey(app.config.redisPrefix, job.msg_id, queue.name);
      const answerKey = relayAnswerKey(
        app.config.redisPrefix,
        job.msg_id,
        queueSlotTag(app.config, queue.name),
      );
      await expect.poll(async () => app.res.redis.exists(answerKey), { timeout: 5_000 }).toBe(0);
      await expect
        .poll(async () => app.res.redis.hget(key, 'data'), { timeout: 5_000 })
        .toContain('"input":""');
    },
  );

  it('groups into a digest', async () => {
    const w = worlds[0]!;
    const template = await createTemplate(app, w, DIGEST);
    const pipe = await createPipe(app, w, {
      template_id: template,
      grouping: { key: '{{ data.group }}', mode: 'digest', window_s: 1 },
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await sendPipe(app, pipe.token, { group: 'db', alert: `a${i}` }));
    const folded = await Promise.all(ids.map((id) => settled(id)));
    expect(folded.map((r) => r.status)).toEqual(['folded', 'folded', 'folded']);
    expect((await settled(folded[0]!.folded_into as string)).status).toBe('sent');
  });

  it('lists a dead message and replays it', async () => {
    const w = worlds[1]!;
    // A message to a channel that does not exist dies at once (CHANNEL_NOT_FOUND), in its bot's partition.
    const pipe = await createPipe(app, w);
    const job = directJobData(w, pipe.id, { channel_id: 'no-such-channel' });
    await app.res.pipeRuntime.messages.add(job);
    const id = job.msg_id;
    expect((await settled(id)).status).toBe('failed');
    const dead = await app.request<{ items: Array<{ msg_id: string }> }>(
      'GET',
      `/admin/api/delivery/list?status=failed&bot_id=${w.bot.id}`,
      { admin: true },
    );
    expect(dead.body.data.items.map((d) => d.msg_id)).toContain(id);
    const replay = await app.request('POST', '/admin/api/delivery/replay', {
      admin: true,
      json: { msg_id: id },
    });
    expect(replay.status).toBe(200);
    expect(await app.res.pipeRuntime.messages.job(id)).toBeDefined();
  });

  it.runIf(mode === 'cluster')('ran every Herald Lua script on the cluster', async () => {
    // What the journeys above do not call: a record lock's release, and the queue gauges' read
    // (one per partition, each in its partition's slot).
    const redis = app.res.redis;
    await withRecordLock(redis, lockKey(app.config.redisPrefix, 'bot', 'lua-check'), async () => undefined);
    const stats = await pipeProbes(app.res.pipeRuntime.queues.all).queueStats?.();
    expect(stats?.map((p) => p.partition)).toEqual(['0', '1', '2', '3']);
    const masters = (redis as unknown as { nodes(role: 'master'): Redis[] }).nodes('master');
    const missing: string[] = [];
    for (const file of luaFiles()) {
      if (OFF_CLUSTER_ONLY.has(file.slice(SRC.pathname.length))) continue;
      const sha = createHash('sha1').update(readFileSync(file, 'utf8')).digest('hex');
      const found = await Promise.all(masters.map((m) => m.script('EXISTS', sha) as Promise<number[]>));
      if (!found.some(([exists]) => exists === 1)) missing.push(file.slice(SRC.pathname.length));
    }
    expect(missing).toEqual([]);
  });
});
