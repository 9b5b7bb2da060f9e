import { UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeMessageStatus } from '../../src/domain/pipes/status.js';
import { DependencyError, NotFoundError } from '../../src/errors/index.js';
import { PIPE_JOB_NAME, PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * pipemsg-status between a job's completion and its write-behind `sent` record: the completed
 * job (its return value) answers, and wins over an older record.
 */
let app: TestApp;
let worker: Worker | undefined;
let connection: Redis;
/** The same Redis and database, the database reached through a proxy a test can cut. */
let cutApp: TestApp;
let mongoProxy: TcpProxy;

const job = (msgId: string): PipeJob => ({
  msg_id: msgId,
  pipe_id: 'pipe-1',
  bot_id: 'bot-1',
  channel_id: 'chan-1',
  guild_id: 'guild-1',
  template_id: null,
  type: null,
  quote: null,
  nonce: '',
  temp_target_id: null,
  input: 'hello',
  accepted_at: 1_700_000_000_000,
});

beforeAll(async () => {
  app = await startTestApp('pipe_status');
  connection = new Redis(app.config.redisUrl, { maxRetriesPerRequest: null });
  const mongo = new URL(app.config.mongoUrl);
  mongoProxy = await startTcpProxy(mongo.hostname, Number(mongo.port || 27017));
  cutApp = await startTestApp(
    'pipe_status_cut',
    { MONGO_URL: `mongodb://127.0.0.1:${mongoProxy.port}/herald`, DB_TIMEOUT_MS: '300' },
    { sharedWith: app },
  );
});

afterAll(async () => {
  mongoProxy?.restore();
  await worker?.close();
  connection?.disconnect();
  await cutApp?.close();
  await app?.close();
  await mongoProxy?.close();
});

/** A worker that sends every message at once and returns its outcome. */
function startSendingWorker(): void {
  worker ??= new Worker(
    PIPE_QUEUE,
    async () => ({
      sent_at: 1_700_000_000_500,
      upstream_msg_id: 'up-1',
      attempts: 2,
      not_permissions_mention: [],
    }),
    { connection, prefix: app.config.redisPrefix },
  );
}

describe('pipeMessageStatus with write-behind sent records', () => {
  it('reports sent from the completed job, also over an older record', async () => {
    const msgId = `status-${Date.now()}`;
    // A worker that sends and returns its outcome, but whose record is not in the store yet.
    startSendingWorker();
    await app.res.pipeRuntime.queue.add(PIPE_JOB_NAME, job(msgId), { jobId: msgId });
    const asker = { pipe_id: 'pipe-1' };
    await expect.poll(async () => (await pipeMessageStatus(app.res, msgId, asker)).status).toBe('sent');
    expect(await pipeMessageStatus(app.res, msgId, asker)).toMatchObject({
      status: 'sent',
      sent_at: 1_700_000_000_500,
      upstream_msg_id: 'up-1',
      attempts: 2,
      msg_timestamp: 1_700_000_000_000,
      error: null,
    });
    // The record of an earlier wait, written before the send: the completed job wins.
    await app.res.store.deliveries.save(
      msgId,
      { bot_id: 'bot-1', pipe_id: 'pipe-1', channel_id: 'chan-1' },
      { status: 'rate_limited', retry_at: 1_700_000_000_100, attempts: 1 },
      Date.now(),
    );
    expect(await pipeMessageStatus(app.res, msgId, asker)).toMatchObject({
      status: 'sent',
      sent_at: 1_700_000_000_500,
      retry_at: null,
    });
    // Another pipe's message is not found.
    await expect(pipeMessageStatus(app.res, msgId, { pipe_id: 'pipe-2' })).rejects.toThrow();
  });
});

describe('pipeMessageStatus of a rate-limited message', () => {
  it('is rate_limited until its retry_at, then queued again', async () => {
    const msgId = `waiting-${Date.now()}`;
    const ids = { bot_id: 'bot-1', pipe_id: 'pipe-1', channel_id: 'chan-1' };
    const asker = { bot_id: 'bot-1' };
    const retryAt = Date.now() + 60_000;
    await app.res.store.deliveries.save(
      msgId,
      ids,
      { status: 'rate_limited', retry_at: retryAt, attempts: 0 },
      Date.now(),
    );
    expect(await pipeMessageStatus(app.res, msgId, asker)).toMatchObject({
      status: 'rate_limited',
      retry_at: retryAt,
    });
    // The wait is over (the worker writes nothing when it takes the message again).
    const later = { ...app.res, now: () => retryAt };
    expect(await pipeMessageStatus(later, msgId, asker)).toMatchObject({ status: 'queued', retry_at: null });
  });
});

describe('pipeMessageStatus of a message waiting to be retried', () => {
  it('shows when the retry is due, and no time once it is', async () => {
    const msgId = `retrying-${Date.now()}`;
    const ids = { bot_id: 'bot-1', pipe_id: 'pipe-1', channel_id: 'chan-1' };
    const retryAt = Date.now() + 30_000;
    await app.res.store.deliveries.save(
      msgId,
      ids,
      { status: 'queued', reason: 'UPSTREAM_UNAVAILABLE', retry_at: retryAt, attempts: 1 },
      Date.now(),
    );
    expect(await pipeMessageStatus(app.res, msgId, { bot_id: 'bot-1' })).toMatchObject({
      status: 'queued',
      retry_at: retryAt,
      error: { reason: 'UPSTREAM_UNAVAILABLE' },
    });
    const later = { ...app.res, now: () => retryAt + 1 };
    expect(await pipeMessageStatus(later, msgId, { bot_id: 'bot-1' })).toMatchObject({
      status: 'queued',
      retry_at: null,
    });
  });
});

describe('pipeMessageStatus while the database is away', () => {
  it('answers sent from a completed job; anything it cannot be sure of is 503, not "not found"', async () => {
    startSendingWorker();
    const sent = `away-sent-${Date.now()}`;
    await app.res.pipeRuntime.queue.add(PIPE_JOB_NAME, job(sent), { jobId: sent });
    await expect
      .poll(async () => (await app.res.pipeRuntime.queue.getJob(sent))?.finishedOn)
      .toBeGreaterThan(0);
    const waiting = `away-waiting-${Date.now()}`;
    await app.res.pipeRuntime.queue.add(PIPE_JOB_NAME, job(waiting), { jobId: waiting, delay: 60_000 });
    const asker = { bot_id: 'bot-1' };
    mongoProxy.cut();
    try {
      expect(await pipeMessageStatus(cutApp.res, sent, asker)).toMatchObject({
        status: 'sent',
        sent_at: 1_700_000_000_500,
      });
      // A delayed job may have a record saying why it waits: only the store can tell.
      await expect(pipeMessageStatus(cutApp.res, waiting, asker)).rejects.toBeInstanceOf(DependencyError);
      // A message whose job the queue no longer keeps has only its record: not "not found".
      await expect(pipeMessageStatus(cutApp.res, `away-gone-${Date.now()}`, asker)).rejects.toBeInstanceOf(
        DependencyError,
      );
      // Another bot's message stays not answered for.
      await expect(pipeMessageStatus(cutApp.res, sent, { bot_id: 'bot-2' })).rejects.toBeInstanceOf(
        DependencyError,
      );
    } finally {
      mongoProxy.restore();
    }
    await expect(pipeMessageStatus(app.res, `away-gone-${Date.now()}`, asker)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('pipeMessageStatus of a failed job with no record yet', () => {
  it('names the reason code the worker failed it with, and never the text of any other error', async () => {
    // Its own queue prefix: the sending worker above takes every job of the shared one.
    const own = await startTestApp('pipe_status_failed');
    const failingConnection = new Redis(own.config.redisUrl, { maxRetriesPerRequest: null });
    const failing = new Worker<PipeJob>(
      PIPE_QUEUE,
      async (j) => {
        // Stands for a worker that failed the job and died before its record was written; the
        // job's input says what it failed with.
        throw new UnrecoverableError(j.data.input as string);
      },
      { connection: failingConnection, prefix: own.config.redisPrefix },
    );
    try {
      const ids = { reason: `failed-reason-${Date.now()}`, other: `failed-other-${Date.now()}` };
      await own.res.pipeRuntime.queue.add(
        PIPE_JOB_NAME,
        { ...job(ids.reason), input: 'NO_SEND_PERMISSION' },
        {
          jobId: ids.reason,
        },
      );
      await own.res.pipeRuntime.queue.add(
        PIPE_JOB_NAME,
        { ...job(ids.other), input: 'connect ECONNREFUSED 10.0.0.7:443' },
        { jobId: ids.other },
      );
      for (const id of Object.values(ids)) {
        await expect
          .poll(() => own.res.pipeRuntime.queue.getJobState(id), { timeout: 10_000 })
          .toBe('failed');
      }
      const asker = { pipe_id: 'pipe-1' };
      expect(await pipeMessageStatus(own.res, ids.reason, asker)).toMatchObject({
        status: 'failed',
        error: { reason: 'NO_SEND_PERMISSION', code: null, message: null },
      });
      const other = await pipeMessageStatus(own.res, ids.other, asker);
      expect(other).toMatchObject({ status: 'failed', error: { reason: null, code: null, message: null } });
      expect(JSON.stringify(other)).not.toContain('ECONNREFUSED');
    } finally {
      await failing.close();
      failingConnection.disconnect();
      await own.close();
    }
  });
});
