import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON } from '../../src/domain/deliveries/reasons.js';
import { markFailed, markSentMany } from '../../src/domain/deliveries/records.js';
import { createLogger } from '../../src/log/logger.js';
import { PipeMessages } from '../../src/queue/messages.js';
import { PIPE_JOB_ATTEMPTS, type PipeJob } from '../../src/queue/pipe-messages.js';
import { openResources, type Resources } from '../../src/resources.js';
import type { DeliveryDetail, DeliveryRecord } from '../../src/store/index.js';
import { fail } from '../../src/workers/delivery/delivery-failure.js';
import { RATE_WAIT_SPREAD } from '../../src/workers/delivery/process-message.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import {
  REPLAY_INTERRUPTED_AFTER_MS,
  reconcileDeadJobs,
  recordDeadJob,
  recordDeadJobPatiently,
  undoInterruptedReplays,
} from '../../src/workers/recovery/dead-jobs.js';
import { overBucket } from '../helpers/rate.js';
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
} from './helpers.js';

/**
 * Failure paths of the pipe-message worker on the real Redis and store: a relay target slower
 * than RELAY_TIMEOUT_MS, and the worker's database connection cut mid-run (through a loopback
 * proxy, so the API and these checks still read the store directly).
 */
const RELAY_TIMEOUT_MS = 500;
/** RELAY_RATE_LIMIT_PATIENCE_MS here: how long a message may wait out relay 429s. */
const RATE_LIMIT_PATIENCE_MS = 1_500;
/** The worker's DB_TIMEOUT_MS: a cut database fails its operations this fast. */
const WORKER_DB_TIMEOUT_MS = 300;

let app: TestApp;
let mongoProxy: TcpProxy;
let redisProxy: TcpProxy;
let workerRes: Resources;
let workers: RunningWorkers;
let relay: RelayServer;
/** The worker's log lines (kept out of the test output; read them when debugging a failure). */
const workerLines: string[] = [];

const record = (msgId: string) => app.res.store.deliveries.get(msgId);
async function settled(msgId: string, timeout = 15_000): Promise<DeliveryRecord> {
  await expect
    .poll(async () => (await record(msgId))?.status, { timeout, interval: 50 })
    .toMatch(/^(sent|failed)$/);
  return (await record(msgId)) as DeliveryRecord;
}
const requestsWith = (content: string) => relay.requests.filter((r) => r.body.content === content);

beforeAll(async () => {
  const mongoUrl = new URL(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/herald');
  mongoProxy = await startTcpProxy(mongoUrl.hostname, Number(mongoUrl.port || 27017));
  const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  // Short relay timeout and retry backoff: five attempts of a slow relay take about 3 s.
  app = await startTestApp('worker_failures', {
    RELAY_TIMEOUT_MS: String(RELAY_TIMEOUT_MS),
    RETRY_BASE_MS: '50',
    RELAY_RATE_LIMIT_PATIENCE_MS: String(RATE_LIMIT_PATIENCE_MS),
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
  });
  // The worker's own resources: the same database, Redis and prefix, both through a proxy.
  const proxied = new URL(app.config.mongoUrl);
  proxied.host = `127.0.0.1:${mongoProxy.port}`;
  const proxiedRedis = new URL(app.config.redisUrl);
  proxiedRedis.host = `127.0.0.1:${redisProxy.port}`;
  const log = createLogger('debug', (line) => workerLines.push(line)).child({ process: 'worker' });
  const workerConfig = {
    ...app.config,
    mongoUrl: proxied.toString(),
    redisUrl: proxiedRedis.toString(),
    dbTimeoutMs: WORKER_DB_TIMEOUT_MS,
  };
  const dbName = `herald_test_${app.config.redisPrefix.replace(/^herald-test-/, '')}`;
  // The short database timeout can expire while a busy store accepts the first connection.
  for (let tries = 1; ; tries++) {
    try {
      workerRes = await openResources(workerConfig, log, { dbName, boundCalls: false }); // as bin/worker.ts
      break;
    } catch (err) {
      if (tries >= 10) throw err;
    }
  }
  workers = await startWorkers(workerRes, workerRes.pipeRuntime.queue);

  relay = await startRelayServer();
});

afterAll(async () => {
  mongoProxy?.restore();
  redisProxy?.restore();
  await workers?.close(2_000);
  await workerRes?.close();
  await relay?.close();
  await app?.close();
  await mongoProxy?.close();
  await redisProxy?.close();
});

describe(`relay target slower than RELAY_TIMEOUT_MS (${RELAY_TIMEOUT_MS} ms here)`, () => {
  let pipeToken: string;
  beforeAll(async () => {
    const w = await createRelayWorld(app, relay.url, {
      name: 'slow relay bot',
      upstream_token: 'tok-slow',
    });
    pipeToken = (await createPipe(app, w)).token;
  });

  /** Answers 200, but only after the worker has given up waiting. */
  const late = (res: Parameters<RelayServer['handler']>[1]) =>
    setTimeout(() => {
      if (!res.destroyed) ok(res, 'too-late');
    }, RELAY_TIMEOUT_MS * 4);

  it('gives up on a held request, retries with the same nonce, and is sent when the relay answers', async () => {
    relay.handler = (body, res) => {
      if (body.content === 'slow twice' && requestsWith('slow twice').length <= 2) return late(res);
      ok(res, `up-${String(body.nonce)}`);
    };
    const msgId = await sendPipe(app, pipeToken, { content: 'slow twice' });
    const rec = await settled(msgId);
    // Sent by the third attempt: the two held requests timed out (a 10 s timeout would have
    // waited for the late answer and been sent by the first, as `too-late`).
    expect(rec, JSON.stringify(rec)).toMatchObject({
      status: 'sent',
      attempts: 3,
      upstream_msg_id: `up-${msgId}`,
      reason: null,
    });
    const tries = requestsWith('slow twice');
    expect(tries).toHaveLength(3);
    expect(tries.map((r) => r.body.nonce)).toEqual([msgId, msgId, msgId]);
    // Each retry came after a whole timeout of the try before it.
    for (let i = 1; i < tries.length; i++) {
      expect((tries[i]?.at ?? 0) - (tries[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(RELAY_TIMEOUT_MS - 10);
    }
  });

  it('fails with UPSTREAM_TIMEOUT when every attempt times out, and lists it as dead', async () => {
    relay.handler = (body, res) => {
      if (body.content === 'always slow') return late(res);
      ok(res, `up-${String(body.nonce)}`);
    };
    const msgId = await sendPipe(app, pipeToken, { content: 'always slow' });
    const rec = await settled(msgId);
    expect(rec, JSON.stringify(rec)).toMatchObject({
      status: 'failed',
      reason: 'UPSTREAM_TIMEOUT',
      code: 50001,
      attempts: PIPE_JOB_ATTEMPTS,
      message: `The relay target is unavailable: no answer within ${RELAY_TIMEOUT_MS} ms`,
      sent_at: null,
    });
    const tries = requestsWith('always slow');
    expect(tries).toHaveLength(PIPE_JOB_ATTEMPTS);
    expect(new Set(tries.map((r) => r.body.nonce))).toEqual(new Set([msgId]));

    const dead = await app.request<{ items: DeliveryRecord[] }>(
      'GET',
      '/admin/api/delivery/list?status=failed',
      { admin: true },
    );
    expect(dead.status).toBe(200);
    expect(dead.body.data.items.find((d) => d.msg_id === msgId)).toMatchObject({
      status: 'failed',
      reason: 'UPSTREAM_TIMEOUT',
      attempts: PIPE_JOB_ATTEMPTS,
    });
    const status = await app.request<Record<string, unknown>>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}&access_token=${encodeURIComponent(pipeToken)}`,
    );
    expect(status.body.data).toMatchObject({
      status: 'failed',
      error: { reason: 'UPSTREAM_TIMEOUT', code: 50001 },
    });
  });
});

describe("the worker's database cut off mid-run", () => {
  it('ends every message sent once it is back: none lost, none twice in the timeline or at the relay', async () => {
    const PER_BOT = 20;
    relay.handler = (body, res) => setTimeout(() => ok(res, `up-${String(body.nonce)}`), 10);
    // Budgets of 10 messages a second (burst 5) spread each bot's deliveries over about 2 s, so
    // the cut lands while both are delivering, and while some wait for their budget.
    const budget = { rate_capacity: 5, rate_per_second: 10 };
    const storeWorld = await createWorld(app, { name: 'outage store bot', ...budget });
    const relayWorld = await createRelayWorld(app, relay.url, {
      name: 'outage relay bot',
      upstream_token: 'tok-outage',
      ...budget,
    });
    const storePipe = await createPipe(app, storeWorld);
    const relayPipe = await createPipe(app, relayWorld);
    const range = Array.from({ length: PER_BOT }, (_, i) => i);
    const [storeIds, relayIds] = await Promise.all([
      Promise.all(range.map((i) => sendPipe(app, storePipe.token, { content: `store ${i}` }))),
      Promise.all(range.map((i) => sendPipe(app, relayPipe.token, { content: `relay ${i}` }))),
    ]);

    // Cut once delivery is under way, and keep the database away until some store message has
    // been run more times than its whole attempt budget: long enough that attempts spent on the
    // outage would have killed it (as they did: dead in the queue, with no record at all).
    await expect
      .poll(() => app.res.store.messages.countByChannel(storeWorld.channelId), {
        timeout: 10_000,
        interval: 20,
      })
      .toBeGreaterThanOrEqual(3);
    const runs = async () => {
      const jobs = await app.res.pipeRuntime.queue.getJobs(['waiting', 'delayed', 'active', 'failed']);
      return new Map(
        jobs.filter((j) => storeIds.includes(String(j.id))).map((j) => [String(j.id), j.attemptsStarted]),
      );
    };
    mongoProxy.cut();
    try {
      const atCut = await runs();
      await expect
        .poll(
          async () => {
            const now = await runs();
            return Math.max(0, ...[...now].map(([id, n]) => n - (atCut.get(id) ?? 0)));
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBeGreaterThanOrEqual(PIPE_JOB_ATTEMPTS);
      expect(await app.res.store.messages.countByChannel(storeWorld.channelId)).toBeLessThan(PER_BOT);
    } finally {
      mongoProxy.restore();
    }

    const ids = [...storeIds, ...relayIds];
    // Unsent messages as `msg_id: record status / job state`, so a failure says where each is.
    const notSent = async () => {
      const out: string[] = [];
      for (const id of ids) {
        const status = (await record(id))?.status ?? 'no record';
        if (status === 'sent') continue;
        const job = await app.res.pipeRuntime.queue.getJob(id);
        out.push(`${id}: ${status} / ${job ? await job.getState() : 'no job'}`);
      }
      return out;
    };
    await expect.poll(notSent, { timeout: 30_000, interval: 200 }).toEqual([]);
    for (const id of ids) expect(await record(id)).toMatchObject({ status: 'sent', reason: null });

    // The timeline holds each store message exactly once.
    const timeline = await app.res.store.messages.listByChannel(storeWorld.channelId, {
      page: 1,
      pageSize: 100,
      sort: { field: 'create_at', dir: -1 },
    });
    expect(timeline.items.map((m) => m.id).sort()).toEqual([...storeIds].sort());
    // The relay saw every relayed message, and only ever under its own msg_id as nonce.
    range.forEach((i) => {
      const nonces = new Set(requestsWith(`relay ${i}`).map((r) => r.body.nonce));
      expect([...nonces]).toEqual([relayIds[i]]);
    });
  }, 90_000);
});

describe("the worker's Redis cut off on a message's last attempt", () => {
  it('keeps a message the relay took: never recorded failed, sent once Redis is back', async () => {
    const w = await createRelayWorld(app, relay.url, {
      name: 'last attempt bot',
      upstream_token: 'tok-last',
    });
    const pipe = await createPipe(app, w);
    // Every attempt but the last meets a 500; the last one is taken (200), but Redis goes away
    // while the relay answers, so the worker cannot append the outcome to the sent log.
    relay.handler = (body, res) => {
      if (body.content !== 'last try') return ok(res, `up-${String(body.nonce)}`);
      const n = requestsWith('last try').length;
      if (n < PIPE_JOB_ATTEMPTS) return answer(res, 500, { code: 500, message: 'busy', data: {} });
      if (n === PIPE_JOB_ATTEMPTS) redisProxy.cut();
      setTimeout(() => ok(res, `up-${String(body.nonce)}`), 50);
    };
    const msgId = await sendPipe(app, pipe.token, { content: 'last try' });
    try {
      // The worker has decided about this outcome once it logs either line.
      await expect
        .poll(
          () =>
            workerLines.some(
              (l) => l.includes(msgId) && /waits for the database or Redis|pipe message failed/.test(l),
            ),
          { timeout: 20_000, interval: 20 },
        )
        .toBe(true);
      expect(workerLines.filter((l) => l.includes(msgId) && l.includes('pipe message failed'))).toEqual([]);
      expect((await record(msgId))?.status).not.toBe('failed');
    } finally {
      redisProxy.restore();
    }
    const rec = await settled(msgId, 30_000);
    expect(rec, JSON.stringify(rec)).toMatchObject({
      status: 'sent',
      attempts: PIPE_JOB_ATTEMPTS,
      upstream_msg_id: `up-${msgId}`,
      reason: null,
    });
    // The relay saw it once more after Redis came back, under the same nonce.
    const tries = requestsWith('last try');
    expect(tries).toHaveLength(PIPE_JOB_ATTEMPTS + 1);
    expect(new Set(tries.map((r) => r.body.nonce))).toEqual(new Set([msgId]));
  }, 60_000);
});

describe(`a relay that keeps answering 429 (patience ${RATE_LIMIT_PATIENCE_MS} ms here)`, () => {
  it('fails the message with UPSTREAM_RATE_LIMITED past the patience; a replay gets a new window', async () => {
    const w = await createRelayWorld(app, relay.url, {
      name: 'always limited bot',
      upstream_token: 'tok-429',
    });
    const pipe = await createPipe(app, w);
    let refuse = true;
    relay.handler = (body, res) => {
      if (body.content !== 'always limited' || !refuse) return ok(res, `up-${String(body.nonce)}`);
      answer(res, 429, { code: 42900, message: 'slow down', data: {} }, { 'X-Rate-Limit-Reset': '0.2' });
    };
    const msgId = await sendPipe(app, pipe.token, { content: 'always limited' });
    const rec = await settled(msgId);
    expect(rec, JSON.stringify(rec)).toMatchObject({
      status: 'failed',
      reason: 'UPSTREAM_RATE_LIMITED',
      code: 42920,
      attempts: 1,
      message: `The relay target kept rate-limiting the message; still refused ${RATE_LIMIT_PATIENCE_MS / 1000} s after it was queued`,
    });
    // It waited out the 429s it could (no attempt spent on them), all under one nonce, and
    // gave up only when the next wait would have ended past the patience.
    const tries = requestsWith('always limited');
    expect(tries.length).toBeGreaterThanOrEqual(3);
    expect(new Set(tries.map((r) => r.body.nonce))).toEqual(new Set([msgId]));
    // Judged on the planned waits the record keeps, not on when the tries arrived: a loaded
    // machine picks a delayed job up late (CI saw the last try 767 ms after its plan).
    const detail = (await app.res.store.deliveries.detail(msgId)) as DeliveryDetail;
    const waits = detail.history.filter((e) => e.status === 'rate_limited');
    expect(waits.length, JSON.stringify(detail.history)).toBeGreaterThanOrEqual(2);
    for (const wait of waits) {
      expect(wait.retry_at ?? Infinity).toBeLessThanOrEqual(rec.created_at + RATE_LIMIT_PATIENCE_MS);
    }
    // The relay's reset was kept: no try came before the wait it followed had ended.
    for (let i = 0; i + 1 < tries.length && i < waits.length; i++) {
      expect(tries[i + 1]!.at).toBeGreaterThanOrEqual((waits[i]!.retry_at ?? 0) - 5);
    }
    // It gave up only once the next wait (the relay's 0.2 s reset) would have ended past it.
    const failedAt = detail.history.find((e) => e.status === 'failed')?.at ?? 0;
    expect(failedAt + 200 * (1 + RATE_WAIT_SPREAD)).toBeGreaterThan(rec.created_at + RATE_LIMIT_PATIENCE_MS);
    const span = (tries.at(-1)?.at ?? 0) - (tries[0]?.at ?? 0);
    expect(span).toBeGreaterThanOrEqual(RATE_LIMIT_PATIENCE_MS - 2 * 400 - 200);

    // A replay is queued anew, so its patience starts again: the relay answers 429 once more,
    // then takes it.
    let once = true;
    relay.handler = (body, res) => {
      if (body.content === 'always limited' && once) {
        once = false;
        return answer(
          res,
          429,
          { code: 42900, message: 'slow down', data: {} },
          { 'X-Rate-Limit-Reset': '0.2' },
        );
      }
      ok(res, `up-${String(body.nonce)}`);
    };
    refuse = false;
    const replay = await app.request('POST', '/admin/api/delivery/replay', {
      admin: true,
      json: { msg_id: msgId },
    });
    expect(replay.status, replay.text).toBe(200);
    expect(await settled(msgId)).toMatchObject({
      status: 'sent',
      upstream_msg_id: `up-${msgId}`,
      reason: null,
    });
    expect(once).toBe(false);
  });
});

describe('dead jobs without a failed record', () => {
  /** A queue beside the pipe queue, and a plain BullMQ worker that fails its jobs for good. */
  async function failedJob(
    queue: Queue<PipeJob, unknown, 'pipe-message'>,
    content: string,
    failedReason = 'the processor died',
  ): Promise<Job<PipeJob>> {
    const msgId = `dead-${Math.random().toString(36).slice(2)}`;
    const data: PipeJob = {
      msg_id: msgId,
      pipe_id: 'p-dead',
      bot_id: 'b-dead',
      channel_id: 'c-dead',
      guild_id: 'g-dead',
      template_id: null,
      type: null,
      quote: null,
      nonce: '',
      temp_target_id: null,
      input: content,
      accepted_at: Date.now(),
    };
    await queue.add('pipe-message', data, { jobId: msgId });
    const failing = new Worker<PipeJob>(
      queue.name,
      async () => {
        // Stands for a process that failed the job and died before writing its record.
        throw new UnrecoverableError(failedReason);
      },
      { connection: redisOptions(), prefix: app.config.redisPrefix },
    );
    await expect.poll(() => queue.getJobState(msgId), { timeout: 10_000 }).toBe('failed');
    await failing.close();
    return (await queue.getJob(msgId)) as Job<PipeJob>;
  }
  const redisOptions = () => {
    const u = new URL(app.config.redisUrl);
    return { host: u.hostname, port: Number(u.port || 6379) };
  };
  let side: Queue<PipeJob, unknown, 'pipe-message'>;
  beforeAll(() => {
    side = new Queue<PipeJob, unknown, 'pipe-message'>(`dead-side-${Date.now()}`, {
      connection: redisOptions(),
      prefix: app.config.redisPrefix,
    });
  });
  afterAll(async () => {
    await side?.obliterate({ force: true });
    await side?.close();
  });

  it('a failed record that cannot be written while the store is away is written once it is back', async () => {
    const job = await failedJob(side, 'record me later');
    let stop = false;
    mongoProxy.cut();
    let done: Promise<void>;
    try {
      done = recordDeadJobPatiently(workerRes, job, new Error('the processor died'), () => stop);
      await expect
        .poll(
          () =>
            workerLines.some(
              (l) => l.includes('could not record a failed message yet') && l.includes(job.data.msg_id),
            ),
          {
            timeout: 10_000,
          },
        )
        .toBe(true);
      expect(await record(job.data.msg_id)).toBeNull();
    } finally {
      mongoProxy.restore();
    }
    await done;
    stop = true;
    expect(await record(job.data.msg_id)).toMatchObject({ status: 'failed', reason: 'INTERNAL' });
  });

  it('start-up and the hourly sweep record dead jobs nobody recorded, once', async () => {
    const job = await failedJob(side, 'nobody recorded me');
    expect(await record(job.data.msg_id)).toBeNull();
    expect(await reconcileDeadJobs(workerRes, new PipeMessages(side))).toBe(1);
    const rec = await record(job.data.msg_id);
    const errorId = String((rec?.detail as { error_id?: string } | null)?.error_id);
    expect(errorId).toMatch(/^[0-9a-f]{12}$/);
    expect(rec).toMatchObject({
      status: 'failed',
      reason: 'INTERNAL',
      message: `Internal error while delivering (error id ${errorId})`,
    });
    // The error's own text is in the worker's log under that id, not on the record.
    expect(workerLines.some((l) => l.includes(errorId) && l.includes('the processor died'))).toBe(true);
    // Once recorded, the ids-only look-up finds it, so its job is not loaded again.
    expect(await workerRes.store.deliveries.settledAmong([job.data.msg_id, 'no-such-message'])).toEqual(
      new Set([job.data.msg_id]),
    );
    expect(await reconcileDeadJobs(workerRes, new PipeMessages(side))).toBe(0);
    const dead = await app.request<{ items: DeliveryRecord[] }>(
      'GET',
      '/admin/api/delivery/list?status=failed',
      {
        admin: true,
      },
    );
    expect(dead.body.data.items.map((d) => d.msg_id)).toContain(job.data.msg_id);
  });

  // process-message.ts fails a job with UnrecoverableError(reason): the job keeps the reason
  // code as its failedReason, and that is what a sweep has when the record never got written.
  it.each([
    ['NO_SEND_PERMISSION', 40323],
    ['TEMP_TARGET_NOT_MEMBER', 40325],
    ['CARD_SYNTAX', 40013],
  ])(
    'the sweep records a job that died of %s with that reason and code, at info level, replayable by reason',
    async (reason, code) => {
      const job = await failedJob(side, `died of ${reason}`, reason);
      const { msg_id } = job.data;
      expect(await record(msg_id)).toBeNull();
      const linesBefore = workerLines.length;
      expect(await reconcileDeadJobs(workerRes, new PipeMessages(side))).toBe(1);
      const rec = await record(msg_id);
      expect(rec).toMatchObject({ status: 'failed', reason, code, attempts: 1 });
      expect(rec?.message).not.toMatch(/internal/i);
      // Not an unexpected error: nothing about this message at error level.
      const lines = workerLines.slice(linesBefore).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.filter((l) => l.level === 'error' && l.msg_id === msg_id)).toEqual([]);
      expect(lines.some((l) => l.msg_id === msg_id && l.reason === reason)).toBe(true);
      // Replay by reason finds it.
      expect(
        await workerRes.store.deliveries.replayableDeadIds({ reason, died_before: Date.now() }, 500),
      ).toContain(msg_id);
    },
  );

  it('the sweep keeps what a record written earlier says about the reason', async () => {
    // The last attempt's record was lost, the retry record before it holds the reason's detail.
    const job = await failedJob(side, 'died of a relay 502', 'UPSTREAM_UNAVAILABLE');
    const { msg_id, bot_id, pipe_id, channel_id } = job.data;
    const retry = {
      status: 'queued' as const,
      reason: 'UPSTREAM_UNAVAILABLE',
      code: 50001,
      message: 'The relay target is unavailable: HTTP 502: bad gateway',
      detail: { detail: 'HTTP 502: bad gateway' },
      attempts: 4,
      retry_at: Date.now() - 1_000,
    };
    await workerRes.store.deliveries.save(msg_id, { bot_id, pipe_id, channel_id }, retry, Date.now());
    // And one whose job died of something that is no reason (BullMQ's own failure): the reason
    // the record last gave.
    const other = await failedJob(side, 'died of a lost lock', 'Missing lock for job x. moveToFinished');
    await workerRes.store.deliveries.save(
      other.data.msg_id,
      { bot_id, pipe_id, channel_id },
      { ...retry, reason: 'UPSTREAM_TIMEOUT', message: 'The relay target is unavailable: no answer' },
      Date.now(),
    );
    expect(await reconcileDeadJobs(workerRes, new PipeMessages(side))).toBe(2);
    expect(await record(msg_id)).toMatchObject({
      status: 'failed',
      reason: 'UPSTREAM_UNAVAILABLE',
      code: 50001,
      message: retry.message,
      detail: retry.detail,
      retry_at: null,
    });
    expect(await record(other.data.msg_id)).toMatchObject({
      status: 'failed',
      reason: 'UPSTREAM_TIMEOUT',
      code: 50001,
      message: 'The relay target is unavailable: no answer',
    });
  });

  /**
   * A dead message (record failed for NO_SEND_PERMISSION, its job failed in the queue) whose
   * replay got as far as its record (queued again, replays 1, `minutesAgo` ago) and no further.
   */
  async function halfReplayed(content: string, minutesAgo: number): Promise<Job<PipeJob>> {
    const job = await failedJob(side, content);
    const { msg_id, bot_id, pipe_id, channel_id } = job.data;
    const ids = { msg_id, bot_id, pipe_id, channel_id };
    const cause = fail(REASON.NO_SEND_PERMISSION, { permission: 'send messages' });
    await markFailed(workerRes, ids, cause, 3, { ...job.data });
    // What replayDelivery writes first, before it swaps the jobs.
    await workerRes.store.deliveries.save(
      msg_id,
      { bot_id, pipe_id, channel_id },
      { status: 'queued', attempts: 0, retry_at: null, replays: 1 },
      Date.now() - minutesAgo * 60_000,
    );
    return job;
  }

  it('a replay cut off before it swapped the jobs: dead again with its own reason, not INTERNAL', async () => {
    const job = await halfReplayed('replayed, web died before the swap', 0);
    expect(await reconcileDeadJobs(workerRes, new PipeMessages(side))).toBe(0);
    expect(await record(job.data.msg_id)).toMatchObject({
      status: 'failed',
      reason: 'NO_SEND_PERMISSION',
      replays: 0,
      attempts: job.attemptsMade,
    });
    // Replayable again: listed as dead.
    const dead = await app.request<{ items: DeliveryRecord[] }>('GET', '/admin/api/delivery/list', {
      admin: true,
    });
    expect(dead.body.data.items.map((d) => d.msg_id)).toContain(job.data.msg_id);
  });

  it('a replay cut off after it removed the old job: the sweep makes it dead again once it is stale', async () => {
    const fresh = await halfReplayed('replayed a moment ago, job gone', 0);
    await fresh.remove();
    const stale = await halfReplayed(
      'replayed, web died after the remove',
      REPLAY_INTERRUPTED_AFTER_MS / 60_000 + 1,
    );
    await stale.remove();
    const onItsWay = await halfReplayed(
      'replayed, its new job waits',
      REPLAY_INTERRUPTED_AFTER_MS / 60_000 + 1,
    );
    await onItsWay.remove();
    await side.add('pipe-message', onItsWay.data, { jobId: onItsWay.data.msg_id, delay: 60_000 });

    expect(await undoInterruptedReplays(workerRes, new PipeMessages(side))).toBe(1);
    expect(await record(stale.data.msg_id)).toMatchObject({
      status: 'failed',
      reason: 'NO_SEND_PERMISSION',
      replays: 0,
    });
    // A replay under way (or one too recent to tell) is left alone.
    expect(await record(fresh.data.msg_id)).toMatchObject({ status: 'queued', replays: 1 });
    expect(await record(onItsWay.data.msg_id)).toMatchObject({ status: 'queued', replays: 1 });
    expect(await undoInterruptedReplays(workerRes, new PipeMessages(side))).toBe(0);
  });

  it('leaves a message recorded as sent alone when a later run of its job stalled to death', async () => {
    const job = await failedJob(side, 'sent, then stalled');
    const { msg_id, bot_id, pipe_id, channel_id } = job.data;
    await markSentMany(workerRes, [
      {
        ids: { msg_id, bot_id, pipe_id, channel_id },
        outcome: { sent_at: Date.now(), upstream_msg_id: 'u-1', attempts: 1, not_permissions_mention: [] },
      },
    ]);
    expect(await recordDeadJob(workerRes, job, new Error('job stalled more than allowable limit'))).toBe(
      false,
    );
    expect(await reconcileDeadJobs(workerRes, new PipeMessages(side))).toBe(0);
    expect(await record(msg_id)).toMatchObject({ status: 'sent', upstream_msg_id: 'u-1' });
  });
});

describe("the worker's database cut off while a bot is over its limit", () => {
  it('still holds the bot to rate + burst (the waits go unrecorded meanwhile), and sends everything', async () => {
    const w = await createRelayWorld(app, relay.url, {
      name: 'over the limit bot',
      upstream_token: 'tok-over',
      rate_capacity: 2,
      rate_per_second: 2,
    });
    const pipe = await createPipe(app, w);
    relay.handler = (body, res) => ok(res, `up-${String(body.nonce)}`);
    // One message warms the worker's caches (served from memory while the database is away),
    // then the bucket refills.
    expect(await settled(await sendPipe(app, pipe.token, { content: 'warm up' }))).toMatchObject({
      status: 'sent',
    });
    await new Promise((r) => setTimeout(r, 1_100));

    mongoProxy.cut();
    let ids: string[];
    try {
      ids = await Promise.all(
        Array.from({ length: 10 }, (_, i) => sendPipe(app, pipe.token, { content: `over ${i}` })),
      );
      // Long enough for the old path (record write fails -> short dependency backoff -> the
      // reservation lets the message through) to push the whole backlog out.
      await expect
        .poll(() => requestsWith('over 0').length + requestsWith('over 1').length, {
          timeout: 10_000,
          interval: 20,
        })
        .toBeGreaterThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 2_000));
    } finally {
      mongoProxy.restore();
    }
    for (const id of ids) expect(await settled(id, 30_000)).toMatchObject({ status: 'sent' });
    const times = relay.requests
      .filter((r) => String(r.body.content).startsWith('over '))
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(times).toHaveLength(10);
    // Between any two arrivals: at most burst (2) + rate (2) x the time between them, plus one
    // token (500 ms) for the jitter between taking the tokens and reaching the relay.
    expect(
      overBucket(times, { capacity: 2, perSecond: 2 }, 500),
      JSON.stringify(times.map((x) => x - (times[0] ?? 0))),
    ).toBeNull();
  }, 60_000);
});

describe("a timeline insert the worker's database did not take", () => {
  it('leaves the paid budget to the next run: sent once the database is back, with no wait for a refill', async () => {
    // A burst of 2 and one token an hour: a second payment for the same message would hold it
    // for an hour.
    const w = await createWorld(app, { name: 'insert cut bot', rate_capacity: 2, rate_per_second: 1 / 3600 });
    const pipe = await createPipe(app, w);
    // One message warms the worker's caches (so the checks pass while the database is away) and
    // spends the first token.
    expect(await settled(await sendPipe(app, pipe.token, { content: 'warm up' }))).toMatchObject({
      status: 'sent',
    });

    mongoProxy.cut();
    let msgId = '';
    try {
      msgId = await sendPipe(app, pipe.token, { content: 'insert cut' });
      // Its first run pays the last token and its insert fails; it is put off and runs again,
      // each time past the budget (the kept payment) and into the cut database.
      await expect
        .poll(async () => (await app.res.pipeRuntime.queue.getJob(msgId))?.attemptsStarted ?? 0, {
          timeout: 10_000,
          interval: 50,
        })
        .toBeGreaterThanOrEqual(3);
    } finally {
      mongoProxy.restore();
    }
    expect(await settled(msgId, 10_000)).toMatchObject({ status: 'sent', attempts: 1 });
    const timeline = await app.res.store.messages.listByChannel(w.channelId, {
      page: 1,
      pageSize: 10,
      sort: { field: 'create_at', dir: -1 },
    });
    expect(timeline.items.map((m) => m.id).filter((id) => id === msgId)).toHaveLength(1);
  }, 40_000);
});
