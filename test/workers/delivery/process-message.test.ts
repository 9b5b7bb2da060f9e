import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DependencyError } from '../../../src/errors/index.js';
import { createLogger } from '../../../src/log/logger.js';
import { bodyInput } from '../../../src/queue/job-input.js';
import { PIPE_JOB_NAME, PIPE_QUEUE, type PipeJob } from '../../../src/queue/pipe-messages.js';
import { messageBucketKey, messageReservationKey, sentLogKey } from '../../../src/redis/keys.js';
import { processPipeJob } from '../../../src/workers/delivery/process-message.js';
import type { ProcessContext } from '../../../src/workers/process-context.js';
import { waitOutDependencyErrors } from '../../../src/workers/recovery/dependency-wait.js';
import { WorkerClosingError } from '../../../src/workers/worker-closing-error.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  answer,
  createPipe,
  createRelayWorld,
  createTemplate,
  createWorld,
  directJobData,
  ok,
  ownTestQueue,
  startRelayServer,
  type World,
  workerContext,
} from '../helpers.js';

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

/** The worker's own parts on the test app's resources, with the stand-in render thread. */
async function workerParts() {
  const ctx = await workerContext(app.res, closers, 1, silent);
  return { ctx, renderer: ctx.renderer, metrics: ctx.metrics };
}

/** A job of pipe `pipeId` as the ingest queues it, but of one attempt: where a failure is final. */
async function queueJob(msgId: string, w: World, pipeId: string) {
  const deps = app.res;
  const data: PipeJob = {
    msg_id: msgId,
    pipe_id: pipeId,
    bot_id: w.bot.id,
    channel_id: w.channelId,
    guild_id: w.guildId,
    template_id: (await deps.store.pipes.get(pipeId))?.template_id ?? null,
    type: null,
    quote: null,
    nonce: '',
    temp_target_id: null,
    ...bodyInput(Buffer.from('{}')),
    accepted_at: Date.now(),
  };
  return deps.pipeRuntime.queue.add(PIPE_JOB_NAME, data, { jobId: msgId, attempts: 1 });
}

describe('a run that fails on an unexpected error (a bug)', () => {
  it("records a generic message and an error id, never the error's text; the log has both", async () => {
    const w = await createWorld(app);
    const secret = 'connect ECONNREFUSED 10.1.2.3:6379 in some internal module';
    const pipe = await createPipe(app, w, { template_id: await createTemplate(app, w, `bug ${secret}`) });
    const { ctx } = await workerParts();
    const msgId = `bug-${Date.now()}`;
    const job = await queueJob(msgId, w, pipe.id);
    await expect(processPipeJob(ctx, job, undefined)).rejects.toBeInstanceOf(UnrecoverableError);

    const record = await app.res.store.deliveries.get(msgId);
    const errorId = (record?.detail as { error_id?: string } | null)?.error_id ?? '';
    expect(errorId).toMatch(/^[0-9a-f]{12}$/);
    expect(record).toMatchObject({
      status: 'failed',
      reason: 'INTERNAL',
      code: 50003,
      message: `Internal error while delivering (error id ${errorId})`,
    });
    // What the pipe's sender sees.
    const status = await app.request<Record<string, unknown>>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}&access_token=${pipe.token}`,
    );
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ status: 'failed', error: { reason: 'INTERNAL', code: 50003 } });
    expect(status.text).not.toContain('10.1.2.3');
    expect(status.text).toContain(errorId);
    // What the operator finds under the id.
    const logged = app.logs.find((l) => l.error_id === errorId);
    expect(logged).toMatchObject({ msg: 'pipe message hit an unexpected error', msg_id: msgId });
    expect(JSON.stringify(logged)).toContain(secret);
  });
});

describe('a run cut off because the worker is stopping', () => {
  it('records nothing and fails nothing, even on the last attempt', async () => {
    const deps = app.res;
    const w = await createWorld(app);
    const pipe = await createPipe(app, w, { template_id: await createTemplate(app, w, 'spin 5000') });
    const { ctx, renderer, metrics } = await workerParts();
    const msgId = `closing-${Date.now()}`;
    const job = await queueJob(msgId, w, pipe.id);
    const failedCounts = () => metrics.registry.getSingleMetricAsString('herald_pipe_messages_failed_total');
    const failedBefore = await failedCounts();
    const run = processPipeJob(ctx, job, undefined).then(
      () => 'returned',
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 300));
    await renderer.close();
    expect(await run).toBeInstanceOf(WorkerClosingError);
    expect(await deps.store.deliveries.get(msgId)).toBeNull();
    // Nothing paid: the budget is taken at the send, after the render.
    expect(await deps.redis.exists(messageReservationKey(app.config.redisPrefix, msgId))).toBe(0);
    expect(await deps.redis.exists(messageBucketKey(app.config.redisPrefix, w.bot.id))).toBe(0);
    expect(await failedCounts()).toBe(failedBefore);
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

/** The sent-log entries of `msgId` (the flusher is not started here: they stay in the stream). */
async function sentEntriesOf(msgId: string): Promise<string[]> {
  const entries = (await app.res.redis.xrange(sentLogKey(app.config.redisPrefix), '-', '+')) as Array<
    [string, string[]]
  >;
  return entries
    .filter(
      ([, fields]) => (JSON.parse(fields[1] as string) as { ids: { msg_id: string } }).ids.msg_id === msgId,
    )
    .map(([id]) => id);
}

/**
 * A relay job whose first run is answered 200 and then dies before the job completes; `between`
 * runs before another worker takes the job over. Resolves with the relay's requests, the first
 * run's outcome and the finished job.
 */
async function crashAfterRelayAnswer(
  name: string,
  between: (ctx: ProcessContext, msgId: string) => Promise<void> = async () => {},
) {
  const relay = await startRelayServer();
  closers.push(() => relay.close());
  const w = await createRelayWorld(app, relay.url, {
    name,
    upstream_token: `tok-${name.replace(/ /g, '-')}`,
  });
  const pipe = await createPipe(app, w);
  const { ctx } = await workerParts();
  // A queue of this test's own: the jobs the tests above queued and ran by hand wait on the pipe queue.
  const queueName = `${PIPE_QUEUE}-crash-${Date.now()}`;
  const connection = new Redis(app.config.redisUrl, { maxRetriesPerRequest: null });
  closers.push(async () => connection.disconnect());
  const queue = new Queue<PipeJob>(queueName, { connection, prefix: app.config.redisPrefix });
  closers.push(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  const msgId = `crash-${Date.now()}`;
  await queue.add(PIPE_JOB_NAME, directJobData(w, pipe.id, { msg_id: msgId }), { jobId: msgId, attempts: 5 });

  // The first run takes the job, the relay answers 200, and the process dies before the job
  // is completed: its lock is never renewed and lapses.
  const dying = new Worker<PipeJob>(queueName, null, {
    connection: connection.duplicate(),
    prefix: app.config.redisPrefix,
    lockDuration: 300,
  });
  closers.push(() => dying.close());
  const job = await dying.getNextJob('dying-token');
  expect(job?.id).toBe(msgId);
  const first = await processPipeJob(ctx, job as Job<PipeJob>, 'dying-token');
  expect(first.upstream_msg_id).toBe(`up-${msgId}`);
  expect(relay.requests).toHaveLength(1);
  await between(ctx, msgId);

  // Another worker finds the job stalled and runs it again.
  const survivor = new Worker<PipeJob>(queueName, (j, token) => processPipeJob(ctx, j, token), {
    connection: connection.duplicate(),
    prefix: app.config.redisPrefix,
    stalledInterval: 100,
  });
  closers.push(() => survivor.close());
  await expect
    .poll(async () => (await queue.getJob(msgId))?.finishedOn, { timeout: 10_000, interval: 20 })
    .toBeGreaterThan(0);
  const done = await queue.getJob(msgId);
  expect(done?.stalledCounter).toBe(1);
  expect(await done?.getState()).toBe('completed');
  return { relay, first, done, msgId };
}

describe('a relay that answered before its worker died', () => {
  it('is not posted to again by the run after the crash: that run finds the answer kept in Redis', async () => {
    const { relay, first, done, msgId } = await crashAfterRelayAnswer('crash window bot');
    // Sent, with the relay's answer to the first run, and posted once.
    expect(done?.returnvalue).toEqual(first);
    expect(relay.requests.map((r) => r.body.nonce)).toEqual([msgId]);
    // Its sent record went into the log with the answer (one script call): not appended again.
    expect(await sentEntriesOf(msgId)).toHaveLength(1);
  });

  it('on a cluster, where the answer can be kept without its sent record, the run after the crash appends the record', async () => {
    // A cluster writes the answer and the entry one by one: the entry's shard failing over
    // between them leaves the answer alone (what the entry's removal stands for here).
    const { relay, first, done, msgId } = await crashAfterRelayAnswer(
      'cluster crash bot',
      async (ctx, id) => {
        Object.defineProperty(ctx.sentLog, 'entryKeptWithAnswer', { get: () => false });
        await app.res.redis.xdel(sentLogKey(app.config.redisPrefix), ...(await sentEntriesOf(id)));
      },
    );
    expect(done?.returnvalue).toEqual(first);
    expect(relay.requests.map((r) => r.body.nonce)).toEqual([msgId]);
    expect(await sentEntriesOf(msgId)).toHaveLength(1);
  });
});

describe("a relay bot's send", () => {
  it('reads its upstream token before the budget: nothing between the budget and the request waits on the database', async () => {
    const relay = await startRelayServer();
    closers.push(() => relay.close());
    const w = await createRelayWorld(app, relay.url, {
      name: 'token order bot',
      upstream_token: 'tok-order',
    });
    const pipe = await createPipe(app, w);
    const { ctx } = await workerParts();
    const events: string[] = [];
    const tokens = ctx.caches.upstreamTokens;
    const readToken = tokens.get.bind(tokens);
    tokens.get = (id) => {
      events.push('token');
      return readToken(id);
    };
    const budgets = ctx.budgets;
    const take = budgets.take.bind(budgets);
    budgets.take = (...args) => {
      events.push('budget');
      return take(...args);
    };
    const msgId = `order-${Date.now()}`;
    const job = await queueJob(msgId, w, pipe.id);
    const outcome = await processPipeJob(ctx, job, undefined);
    expect(outcome.upstream_msg_id).toBe(`up-${msgId}`);
    expect(relay.requests.map((r) => r.headers.authorization)).toEqual(['Bot tok-order']);
    expect(events).toContain('budget');
    expect(events.slice(events.indexOf('budget'))).not.toContain('token');
  });

  it('reads the token again for each part of a split message: a token changed meanwhile is the one used', async () => {
    const relay = await startRelayServer();
    closers.push(() => relay.close());
    const w = await createRelayWorld(app, relay.url, {
      name: 'token rotation bot',
      upstream_token: 'tok-old',
      rate_capacity: 1,
      rate_per_second: 2,
    });
    const pipe = await createPipe(app, w);
    const { ctx } = await workerParts();
    // The first part's request changes the token, and is answered once this worker's cache
    // (kept current by the change feed) has the new one.
    relay.handler = (body, res, n) => {
      if (n !== 1) return ok(res, `up-${String(body.nonce)}`);
      void (async () => {
        const r = await app.request('POST', '/admin/api/bot/update', {
          admin: true,
          json: { id: w.bot.id, upstream_token: 'tok-new' },
        });
        expect(r.status).toBe(200);
        await expect.poll(() => ctx.caches.upstreamTokens.get(w.bot.id), { timeout: 10_000 }).toBe('tok-new');
        ok(res, `up-${String(body.nonce)}`);
      })();
    };
    const data = directJobData(w, pipe.id, { input: 'x'.repeat(20_000) });
    const job = await app.res.pipeRuntime.queue.add(PIPE_JOB_NAME, data, { jobId: data.msg_id, attempts: 1 });
    const outcome = await processPipeJob(ctx, job, undefined);
    expect(outcome.parts).toHaveLength(3);
    expect(relay.requests.map((r) => r.headers.authorization)).toEqual([
      'Bot tok-old',
      'Bot tok-new',
      'Bot tok-new',
    ]);
  }, 30_000);
});

describe('a retry whose record the database does not take', () => {
  it('still spends its attempt: the next run is attempt 2, and says so', async () => {
    const relay = await startRelayServer();
    closers.push(() => relay.close());
    relay.handler = (body, res, n) =>
      n === 1 ? answer(res, 500, { code: 500, message: 'busy' }) : ok(res, `up-${String(body.nonce)}`);
    const w = await createRelayWorld(app, relay.url, {
      name: 'unrecorded retry bot',
      upstream_token: 'tok-unrec',
    });
    const pipe = await createPipe(app, w);
    const { ctx } = await workerParts();
    // The store refuses the retry's `queued` record once, as a database that timed out would.
    const deliveries = app.res.store.deliveries;
    const save = deliveries.save.bind(deliveries);
    let refused = 0;
    deliveries.save = (...args: Parameters<typeof save>) => {
      if (args[2].status === 'queued' && refused === 0) {
        refused++;
        return Promise.reject(new DependencyError('database'));
      }
      return save(...args);
    };
    closers.push(async () => {
      deliveries.save = save;
    });
    const { queue, connection } = ownTestQueue(app, closers, 'unrecorded');
    const msgId = `unrecorded-${Date.now()}`;
    await queue.add(PIPE_JOB_NAME, directJobData(w, pipe.id, { msg_id: msgId }), {
      jobId: msgId,
      attempts: 5,
      backoff: { type: 'fixed', delay: 10 },
    });
    const worker = new Worker<PipeJob>(
      queue.name,
      waitOutDependencyErrors((j, token) => processPipeJob(ctx, j, token), 20, silent),
      { connection: connection.duplicate(), prefix: app.config.redisPrefix },
    );
    closers.push(() => worker.close());
    await expect
      .poll(async () => (await queue.getJob(msgId))?.finishedOn, { timeout: 10_000, interval: 20 })
      .toBeGreaterThan(0);
    const done = await queue.getJob(msgId);
    expect(refused).toBe(1);
    expect(relay.requests.map((r) => r.body.nonce)).toEqual([msgId, msgId]);
    expect(done?.returnvalue).toMatchObject({ attempts: 2, upstream_msg_id: `up-${msgId}` });
  });
});

describe('a retry recorded after its backoff has passed', () => {
  it('is due when it was recorded, not before its own event', async () => {
    const relay = await startRelayServer();
    closers.push(() => relay.close());
    relay.handler = (_body, res) => answer(res, 503, { code: 503, message: 'busy' });
    const w = await createRelayWorld(app, relay.url, { name: 'late record bot', upstream_token: 'tok-late' });
    const pipe = await createPipe(app, w);
    // The records' clock a minute past the decision's: a record written after its short backoff
    // had run out, as on a loaded machine.
    const ahead = 60_000;
    const ctx = await workerContext({ ...app.res, now: () => Date.now() + ahead }, closers, 1, silent);
    const data = directJobData(w, pipe.id);
    const job = await app.res.pipeRuntime.queue.add(PIPE_JOB_NAME, data, { jobId: data.msg_id, attempts: 3 });
    const before = Date.now() + ahead;
    await expect(processPipeJob(ctx, job, undefined)).rejects.toThrow();
    const record = await app.res.store.deliveries.detail(data.msg_id);
    const event = record?.history[0];
    expect(event).toMatchObject({ status: 'retrying', attempt: 1 });
    expect(event?.at).toBeGreaterThanOrEqual(before);
    expect(event?.retry_at).toBeGreaterThanOrEqual(event?.at ?? Number.POSITIVE_INFINITY);
    expect(record?.retry_at).toBe(event?.retry_at);
  });
});
