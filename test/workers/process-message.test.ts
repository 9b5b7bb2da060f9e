import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { metricsFor } from '../../src/metrics/index.js';
import { bodyInput } from '../../src/queue/job-input.js';
import { PIPE_JOB_NAME, PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { BucketLeases } from '../../src/ratelimit/bucket-leases.js';
import { WorkerCaches } from '../../src/workers/caches.js';
import { waitOutDependencyErrors } from '../../src/workers/dependency-wait.js';
import { messageReservationKey, processPipeJob } from '../../src/workers/process-message.js';
import { RenderPool } from '../../src/workers/render-pool.js';
import { SentLog } from '../../src/workers/sent-log.js';
import { WorkerClosingError } from '../../src/workers/worker-closing-error.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, createTemplate, createWorld, standInThread } from './helpers.js';

/**
 * A worker stopping past its deadline cuts off the renders in flight (RenderPool.close): such a
 * run is neither a failure nor a retry of the message. Driven here with the worker's own parts
 * and a stand-in render thread that spins as long as asked (`spin <ms>`, the template's text).
 */
let app: TestApp;
const closers: Array<() => Promise<unknown>> = [];
const silent = createLogger('error', () => {});

beforeAll(async () => {
  app = await startTestApp('process_message');
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await app?.close();
});

describe('a run cut off because the worker is stopping', () => {
  it('records nothing and fails nothing, even on the last attempt', async () => {
    const deps = app.res;
    const w = await createWorld(app);
    const pipe = await createPipe(app, w, { template_id: await createTemplate(app, w, 'spin 5000') });
    const caches = new WorkerCaches(deps);
    await caches.start(deps);
    closers.push(() => caches.close());
    const blocking = new Redis(app.config.redisUrl, { maxRetriesPerRequest: null });
    closers.push(async () => blocking.disconnect());
    const renderer = new RenderPool(1, silent, 60_000, standInThread());
    closers.push(() => renderer.close());
    await renderer.ready();
    const metrics = metricsFor(deps);
    const ctx = {
      deps,
      caches,
      metrics,
      sentLog: new SentLog(deps, deps.redis, blocking),
      renderer,
      budgets: new BucketLeases(deps.redis),
    };
    const msgId = `closing-${Date.now()}`;
    const data: PipeJob = {
      msg_id: msgId,
      pipe_id: pipe.id,
      bot_id: w.bot.id,
      channel_id: w.channelId,
      guild_id: w.guildId,
      template_id: (await deps.store.pipes.get(pipe.id))?.template_id ?? null,
      type: null,
      quote: null,
      nonce: '',
      temp_target_id: null,
      ...bodyInput(Buffer.from('{}')),
      accepted_at: Date.now(),
    };
    // No `attempts` option: its first attempt is its last, where a failure would be final.
    const job = await deps.pipeRuntime.queue.add(PIPE_JOB_NAME, data, { jobId: msgId });
    const run = processPipeJob(ctx, job, undefined).then(
      () => 'returned',
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 300));
    await renderer.close();
    expect(await run).toBeInstanceOf(WorkerClosingError);
    expect(await deps.store.deliveries.get(msgId)).toBeNull();
    // It had paid its budget and never reached the sink: the next run passes free.
    expect(await deps.redis.exists(messageReservationKey(app.config.redisPrefix, msgId))).toBe(1);
    expect(await metrics.registry.getSingleMetricAsString('herald_pipe_messages_failed_total')).not.toContain(
      'INTERNAL',
    );
  });

  it('is put off without spending an attempt, and runs again', async () => {
    const name = `${PIPE_QUEUE}-closing-${Date.now()}`;
    const connection = new Redis(app.config.redisUrl, { maxRetriesPerRequest: null });
    closers.push(async () => connection.disconnect());
    const queue = new Queue(name, { connection, prefix: app.config.redisPrefix });
    closers.push(async () => {
      await queue.obliterate({ force: true });
      await queue.close();
    });
    let runs = 0;
    const worker = new Worker(
      name,
      waitOutDependencyErrors(
        async () => {
          runs += 1;
          if (runs === 1) throw new WorkerClosingError();
          return 'sent';
        },
        20,
        silent,
      ),
      { connection: connection.duplicate(), prefix: app.config.redisPrefix },
    );
    closers.push(() => worker.close());
    let failed = 0;
    worker.on('failed', () => {
      failed += 1;
    });
    // One attempt only: had the cut-off run spent it, the job would be dead.
    const job = await queue.add('m', {}, { attempts: 1 });
    await expect
      .poll(async () => (await queue.getJob(job.id as string))?.finishedOn, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const done = await queue.getJob(job.id as string);
    expect(await done?.getState()).toBe('completed');
    expect(done?.returnvalue).toBe('sent');
    expect(runs).toBe(2);
    expect(failed).toBe(0);
  });
});
