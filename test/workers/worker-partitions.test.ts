import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOfBot } from '../../src/redis/partitions.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, createWorld, sendPipe, type World } from './helpers.js';

/**
 * WORKER_PARTITIONS on the real Redis (standalone, 4 partitions, a prefix of its own): a worker
 * given partitions 1 and 3 takes only their jobs; those of 0 and 2 wait until a worker that
 * covers them starts. Each worker runs on resources of its own (a second process's, sharing the
 * database and prefix), as its setting is read from its own config.
 */
const SETTINGS = { REDIS_QUEUE_PARTITIONS: '4', METRICS_PORT: '0', HOST: '127.0.0.1' };

let web: TestApp;
const sharing: TestApp[] = [];
const running: RunningWorkers[] = [];

/** Workers of a process whose WORKER_PARTITIONS is `partitions`. */
async function startWorkersFor(partitions: string): Promise<RunningWorkers> {
  const app = await startTestApp(
    'worker_partitions',
    {},
    { sharedWith: web, override: { ...SETTINGS, WORKER_PARTITIONS: partitions } },
  );
  sharing.push(app);
  const workers = await startWorkers(app.res, app.res.pipeRuntime.queues);
  running.push(workers);
  return workers;
}

beforeAll(async () => {
  web = await startTestApp('worker_partitions', {}, { override: { ...SETTINGS, WORKER_PARTITIONS: '' } });
});

afterAll(async () => {
  for (const workers of running) await workers.close(2_000);
  for (const app of sharing) await app.close();
  await web?.close();
});

describe('a worker given a subset of the partitions (WORKER_PARTITIONS)', () => {
  it('takes jobs only from its partitions; the others wait for a worker that covers them', async () => {
    // A bot in each partition (a bot's messages all go to its partition).
    const byPartition = new Map<number, World>();
    for (let tries = 0; byPartition.size < 4 && tries < 40; tries++) {
      const w = await createWorld(web, { rate_capacity: 1000, rate_per_second: 1000 });
      const i = partitionOfBot(web.config, w.bot.id);
      if (!byPartition.has(i)) byPartition.set(i, w);
    }
    expect([...byPartition.keys()].sort()).toEqual([0, 1, 2, 3]);
    const sent = new Map<number, string[]>();
    for (const [i, w] of byPartition) {
      const pipe = await createPipe(web, w);
      sent.set(i, [
        await sendPipe(web, pipe.token, { content: `p${i} a` }),
        await sendPipe(web, pipe.token, { content: `p${i} b` }),
      ]);
    }
    const status = async (id: string) => (await web.res.store.deliveries.get(id))?.status ?? 'none';
    const statuses = (partitions: number[]) =>
      Promise.all(partitions.flatMap((i) => sent.get(i) ?? []).map(status));
    const jobStates = (partitions: number[]) =>
      Promise.all(
        partitions.flatMap((i) => {
          const queue = web.res.pipeRuntime.queues.all[i]!;
          return (sent.get(i) ?? []).map((id) => queue.getJobState(id));
        }),
      );

    const odd = await startWorkersFor('1,3');
    expect(odd.partitions).toEqual([1, 3]);
    await expect
      .poll(() => statuses([1, 3]), { timeout: 15_000, interval: 50 })
      .toEqual(Array(4).fill('sent'));
    // Had it consumed partitions 0 or 2, their jobs would have gone by now (a few ms each).
    await new Promise((r) => setTimeout(r, 500));
    expect(await jobStates([0, 2])).toEqual(Array(4).fill('waiting'));
    expect(await statuses([0, 2])).not.toContain('sent');
    // Its /metrics names what it consumes, and shows every partition's depth (the uncovered ones'
    // messages waiting), so a dashboard sees a partition nobody drains.
    const metrics = await fetch(`http://127.0.0.1:${odd.metricsPort}/metrics`).then((r) => r.text());
    const consumed = [...metrics.matchAll(/^herald_worker_partition_consumed\{partition="(\d+)"\} 1$/gm)];
    expect(consumed.map((m) => m[1])).toEqual(['1', '3']);
    for (const i of [0, 2]) {
      expect(metrics).toMatch(
        new RegExp(`^herald_pipe_queue_depth\\{partition="${i}",state="waiting"\\} 2$`, 'm'),
      );
      const age = new RegExp(
        `^herald_pipe_queue_oldest_waiting_age_seconds\\{partition="${i}"\\} (\\S+)$`,
        'm',
      );
      expect(Number(age.exec(metrics)?.[1])).toBeGreaterThan(0);
    }
    // Its job slots are WORKER_CONCURRENCY shared over its own two consumers only.
    const slots = 2 * Math.ceil(web.config.workerConcurrency / 2);
    expect(metrics).toMatch(new RegExp(`^herald_worker_slots ${slots}$`, 'm'));

    // A worker covering the rest drains them.
    const even = await startWorkersFor('0,2');
    expect(even.partitions).toEqual([0, 2]);
    await expect
      .poll(() => statuses([0, 2]), { timeout: 15_000, interval: 50 })
      .toEqual(Array(4).fill('sent'));
  }, 60_000);
});
