import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SentOutcome } from '../../src/domain/deliveries/records.js';
import { createLogger } from '../../src/log/logger.js';
import { PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { processPipeJob } from '../../src/workers/delivery/process-message.js';
import { waitOutDependencyErrors } from '../../src/workers/recovery/dependency-wait.js';
import { overBucket } from '../helpers/rate.js';
import { type RelayProcess, startRelayProcess } from '../helpers/relay-process.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  createPipe,
  createRelayWorld,
  createTemplate,
  createWorld,
  sendPipe,
  type World,
  workerContext,
} from './helpers.js';

/**
 * A bot's limit held where it matters: at the upstream. Two worker instances (each with its own
 * Redis clients, caches, budget leases and three render threads) deliver one bot's backlog whose
 * renders take from nothing to 600 ms (stand-in render threads that take as long as the template says),
 * and the relay's own arrival times, and the store sink's sent_at, are held to
 * capacity + rate x t over every window.
 */
const CAPACITY = 3;
const PER_SECOND = 2;
/**
 * Slack for what lies between the budget's answer and the relay's clock (the request on
 * loopback, millisecond timestamps): 50 ms of refill at this rate.
 */
const EPSILON = 0.1;
/** Render length of each message of the backlog, in ms: slow ones first, as the burst. */
const RENDERS_MS = [600, 600, 600, 0, 0, 0, 600, 0, 150, 600, 0, 0, 600, 0];

let web: TestApp;
const apps: TestApp[] = [];
const closers: Array<() => Promise<unknown>> = [];
const silent = createLogger('error', () => {});
let relay: RelayProcess;
const arrivals = () => relay.arrivals();

/** One worker instance on `app`'s resources: the worker's own parts and a BullMQ worker. */
async function startInstance(app: TestApp): Promise<void> {
  const ctx = await workerContext(app.res, closers, 3, silent);
  const worker = new Worker<PipeJob>(
    PIPE_QUEUE,
    waitOutDependencyErrors((job, token) => processPipeJob(ctx, job, token), 50, silent),
    {
      connection: new Redis(app.config.redisUrl, { maxRetriesPerRequest: null }),
      prefix: app.config.redisPrefix,
      concurrency: 8,
    },
  );
  closers.push(() => worker.close());
}

beforeAll(async () => {
  web = await startTestApp('upstream_rate');
  apps.push(web, await startTestApp('upstream_rate', {}, { sharedWith: web }));
  relay = await startRelayProcess();
  closers.push(() => relay.close());
  for (const app of apps) await startInstance(app);
  // Warm: both instances have keep-alive connections to the relay, and their first request's
  // one-off costs (a connection, code run for the first time: 90-130 ms here) are behind them.
  const warm = await createRelayWorld(web, relay.url, { name: 'warm-up bot', upstream_token: 'tok-warm' });
  const warmPipe = await createPipe(web, warm);
  const warmIds = await Promise.all(
    Array.from({ length: 32 }, (_, i) => sendPipe(web, warmPipe.token, { content: `warm ${i}` })),
  );
  await vi.waitFor(
    async () => {
      if ((await arrivals()).filter((r) => warmIds.includes(r.nonce)).length < warmIds.length)
        throw new Error('warming');
    },
    { timeout: 20_000, interval: 50 },
  );
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  for (const app of apps.reverse()) await app.close();
});

/** The bucket the bot's sends must keep to, with EPSILON tokens of slack (as ms of refill). */
const overLimit = (times: readonly number[]) =>
  overBucket(times, { capacity: CAPACITY, perSecond: PER_SECOND }, (EPSILON * 1000) / PER_SECOND);

/** A backlog of `w`'s pipes, one message per entry of RENDERS_MS, through a pipe of that render's length. */
async function sendBacklog(w: World): Promise<string[]> {
  const pipes = new Map<number, string>();
  for (const ms of new Set(RENDERS_MS)) {
    pipes.set(
      ms,
      (await createPipe(web, w, { template_id: await createTemplate(web, w, `sleep ${ms}`) })).token,
    );
  }
  return Promise.all(RENDERS_MS.map((ms, i) => sendPipe(web, pipes.get(ms) as string, { i })));
}

/** The sent outcomes of `ids` once every job is completed. */
async function outcomes(ids: readonly string[]): Promise<SentOutcome[]> {
  const queue = web.res.pipeRuntime.queue;
  const jobs = async () => Promise.all(ids.map((id) => queue.getJob(id)));
  await expect
    .poll(async () => (await jobs()).filter((j) => j?.finishedOn !== undefined).length, {
      timeout: 40_000,
      interval: 100,
    })
    .toBe(ids.length);
  const done = (await jobs()) as Array<Job<PipeJob, SentOutcome>>;
  for (const job of done) expect(await job.getState(), job.failedReason).toBe('completed');
  return done.map((j) => j.returnvalue);
}

// The two bots' backlogs at once: each is judged on its own arrivals, and the file runs alone
// (vitest.config.ts), so only these two share the workers.
describe.concurrent(`a bot of ${CAPACITY} tokens and ${PER_SECOND}/s, renders of 0 to 600 ms, two worker instances`, () => {
  it('the relay receives no more than capacity + rate x t in any window, by its own clock', async () => {
    const w = await createRelayWorld(web, relay.url, {
      name: 'upstream rate relay bot',
      upstream_token: 'tok-rate',
      rate_capacity: CAPACITY,
      rate_per_second: PER_SECOND,
    });
    const ids = await sendBacklog(w);
    await outcomes(ids);
    const times = (await arrivals()).filter((r) => ids.includes(r.nonce)).map((r) => r.at);
    expect(times).toHaveLength(ids.length);
    expect(overLimit(times), JSON.stringify(times)).toBeNull();
  }, 60_000);

  it("the store sink's sent_at keeps to capacity + rate x t in any window", async () => {
    const w = await createWorld(web, {
      name: 'upstream rate store bot',
      rate_capacity: CAPACITY,
      rate_per_second: PER_SECOND,
    });
    const ids = await sendBacklog(w);
    const sent = await outcomes(ids);
    expect(overLimit(sent.map((o) => o.sent_at))).toBeNull();
    // sent_at is when the sink took the message: the timeline's create_at.
    const stored = await Promise.all(ids.map((id) => web.res.store.messages.get(id)));
    expect(stored.map((m) => m?.create_at)).toEqual(sent.map((o) => o.sent_at));
  }, 60_000);
});
