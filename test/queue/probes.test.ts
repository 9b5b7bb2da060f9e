import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/index.js';
import { PIPE_JOB_NAME, PIPE_QUEUE, type PipeQueue } from '../../src/queue/pipe-messages.js';
import { pipeProbes, readPartitionStats } from '../../src/queue/probes.js';
import { useFileRedis } from '../helpers/redis.js';

/**
 * The queue gauges (src/queue/probes.ts, queue-stats.lua) on the real Redis, for a queue state
 * built step by step: each count, the ready messages and the oldest one's age are known.
 */
const redis = useFileRedis('queue-probes', 2);
let queue: PipeQueue;
let worker: Worker;
/** The clock the probes read: fixed, so ages are exact. */
const NOW = Date.now();

const add = (id: string, opts: { timestamp?: number; delay?: number } = {}) =>
  queue.add(PIPE_JOB_NAME, { msg_id: id } as never, { jobId: id, timestamp: NOW, ...opts });

beforeAll(async () => {
  queue = new Queue(PIPE_QUEUE, { connection: redis.clients[0] as Redis, prefix: redis.prefix }) as PipeQueue;
  // A worker that fetches only when told (getNextJob), to put jobs in active and failed.
  worker = new Worker(PIPE_QUEUE, null, {
    connection: (redis.clients[1] as Redis).duplicate({ maxRetriesPerRequest: null }),
    prefix: redis.prefix,
    autorun: false,
  });
  await worker.waitUntilReady();
});
afterAll(async () => {
  await worker?.close();
  await queue?.close();
});

const stats = () =>
  readPartitionStats(redis.clients[0] as Redis, redis.prefix, { name: PIPE_QUEUE, partition: '0' }, NOW);

describe('pipe queue gauges', () => {
  it('counts each state, the ready messages and the oldest ready age', async () => {
    expect(await stats()).toEqual({
      partition: '0',
      waiting: 0,
      delayed: 0,
      due: 0,
      active: 0,
      failed: 0,
      oldestReadyAgeS: 0,
    });
    // One taken (active), one taken and failed for good.
    await add('active-1');
    await add('failed-1');
    const taken = await worker.getNextJob('t1');
    const dying = await worker.getNextJob('t2');
    expect([taken?.id, dying?.id]).toEqual(['active-1', 'failed-1']);
    await dying?.moveToFailed(new Error('dead'), 't2');
    // Three waiting, added 30, 20 and 10 s ago: the first one added is the oldest.
    for (const ago of [30, 20, 10]) await add(`waiting-${ago}`, { timestamp: NOW - ago * 1000 });
    // Two put off for a minute: delayed, not ready.
    for (const n of [1, 2]) await add(`later-${n}`, { delay: 60_000 });
    expect(await stats()).toEqual({
      partition: '0',
      waiting: 3,
      delayed: 2,
      due: 0,
      active: 1,
      failed: 1,
      oldestReadyAgeS: 30,
    });
    // A delayed job whose time came 45 s ago (no worker fetched since, so BullMQ has not moved it
    // to waiting): ready, and now the oldest.
    await add('due-45', { timestamp: NOW - 50_000, delay: 5_000 });
    expect(await stats()).toMatchObject({ waiting: 3, delayed: 3, due: 1, oldestReadyAgeS: 45 });
  });

  it('serves them per partition and state in /metrics, one Redis call per partition', async () => {
    const metrics = createMetrics();
    metrics.setProbes(pipeProbes([queue], () => NOW));
    const client = (await queue.client) as unknown as Redis;
    let calls = 0;
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
      calls++;
      return send(...args);
    }) as Redis['sendCommand'];
    const text = await metrics.registry.metrics().finally(() => {
      client.sendCommand = send;
    });
    expect(calls).toBe(1);
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect({
      waiting: value('herald_pipe_queue_depth{partition="0",state="waiting"}'),
      delayed: value('herald_pipe_queue_depth{partition="0",state="delayed"}'),
      active: value('herald_pipe_queue_depth{partition="0",state="active"}'),
      failed: value('herald_pipe_queue_depth{partition="0",state="failed"}'),
      ready: value('herald_pipe_queue_ready_messages{partition="0"}'),
      oldest: value('herald_pipe_queue_oldest_waiting_age_seconds{partition="0"}'),
      dead: value('herald_pipe_dead_messages'),
    }).toEqual({ waiting: 3, delayed: 3, active: 1, failed: 1, ready: 4, oldest: 45, dead: 1 });
    // A web process has no job slots: their gauges are not in its registry.
    expect(text).not.toContain('herald_worker_');
  });

  it('a job that ran before counts from its last start, not from when it was added', async () => {
    // The oldest waiting job (added 30 s ago) ran, and went back to waiting 5 s ago (a stall).
    const client = redis.clients[0] as Redis;
    await client.hset(queue.toKey('waiting-30'), 'processedOn', String(NOW - 25_000));
    await queue.remove('due-45');
    expect(await stats()).toMatchObject({ due: 0, oldestReadyAgeS: 25 });
  });

  it('a job added with a delay is ready from its time, once promoted to waiting too', async () => {
    await queue.obliterate({ force: true });
    // Added a minute ago, due 40 s ago; a backoff's own delay is not the job's.
    const job = await queue.add(PIPE_JOB_NAME, { msg_id: 'promoted' } as never, {
      jobId: 'promoted',
      timestamp: NOW - 60_000,
      delay: 20_000,
      backoff: { type: 'fixed', delay: 50_000 },
    });
    expect(await stats()).toMatchObject({ waiting: 0, delayed: 1, due: 1, oldestReadyAgeS: 40 });
    await job.promote();
    expect(await stats()).toMatchObject({ waiting: 1, delayed: 0, due: 0, oldestReadyAgeS: 40 });
  });

  it('shows no series when Redis does not answer, rather than stale counts', async () => {
    const metrics = createMetrics();
    metrics.setProbes({ queueStats: () => Promise.reject(new Error('down')) });
    const text = await metrics.registry.metrics();
    expect(text).not.toMatch(/^herald_pipe_queue_depth\{/m);
    expect(text).not.toMatch(/^herald_pipe_queue_oldest_waiting_age_seconds\{/m);
  });
});
