import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON } from '../../src/domain/deliveries/reasons.js';
import { markFailed } from '../../src/domain/deliveries/records.js';
import { noteWait } from '../../src/domain/deliveries/wait-notes.js';
import { type PipeMessageStatus, pipeMessageStatus } from '../../src/domain/pipes/status.js';
import { DependencyError, NotFoundError } from '../../src/errors/index.js';
import { PIPE_JOB_NAME, PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { fail } from '../../src/workers/delivery/delivery-failure.js';
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
      // Sent as one message: itself.
      parts: [{ msg_id: msgId, upstream_msg_id: 'up-1' }],
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
  it('names the reason the worker failed it with, its code and message, and never the text of any other error', async () => {
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
      // A failed status always has its details: those the sweep will record (dead-failure.ts).
      expect(await pipeMessageStatus(own.res, ids.reason, asker, 'en-US')).toMatchObject({
        status: 'failed',
        attempts: 1,
        error: {
          reason: 'NO_SEND_PERMISSION',
          code: 40323,
          message: 'The bot lacks the send messages permission in channel chan-1',
        },
      });
      // In the reader's language: zh-CN by default.
      expect((await pipeMessageStatus(own.res, ids.reason, asker)).error?.message).toBe(
        '机器人在频道 chan-1 中缺少权限：发送消息',
      );
      const other = await pipeMessageStatus(own.res, ids.other, asker);
      expect(other).toMatchObject({ status: 'failed', error: { reason: 'INTERNAL', code: 50003 } });
      expect(JSON.stringify(other)).not.toContain('ECONNREFUSED');
    } finally {
      await failing.close();
      failingConnection.disconnect();
      await own.close();
    }
  });
});

describe('pipeMessageStatus never tears: a terminal status comes with its details, and exact counts', () => {
  const TOKEN = 'status-tear-test';
  const asker = { pipe_id: 'pipe-1' };
  const ids = { bot_id: 'bot-1', pipe_id: 'pipe-1', channel_id: 'chan-1' };
  let own: TestApp;
  let manualConnection: Redis;
  /** Takes jobs by hand (no processor): each test decides when its job completes or fails. */
  let manual: Worker<PipeJob>;

  beforeAll(async () => {
    own = await startTestApp('pipe_status_tears');
    manualConnection = new Redis(own.config.redisUrl, { maxRetriesPerRequest: null });
    manual = new Worker<PipeJob>(PIPE_QUEUE, null, {
      connection: manualConnection,
      prefix: own.config.redisPrefix,
    });
  });
  afterAll(async () => {
    await manual?.close();
    manualConnection?.disconnect();
    await own?.close();
  });

  /** Queues `msgId` and takes it as a worker starting a run would, after `retries` failed attempts. */
  async function running(msgId: string, retries = 0): Promise<Job<PipeJob>> {
    await own.res.pipeRuntime.queue.add(PIPE_JOB_NAME, job(msgId), {
      jobId: msgId,
      attempts: 5,
      backoff: { type: 'fixed', delay: 0 },
    });
    for (let run = 0; ; run++) {
      const taken = await manual.getNextJob(TOKEN, { block: true });
      expect(taken?.id).toBe(msgId);
      if (run === retries) return taken as Job<PipeJob>;
      await taken?.moveToFailed(new Error('relay answered 502'), TOKEN);
    }
  }

  /**
   * Reads the status with `between` run right before the read's second Redis command about the
   * message leaves: a read of the job in two steps (its fields, then its state) sees the job
   * change in between, as it does under load. A read in one step sends no second command; then
   * `between` runs after it. The store is read as the status read reads it.
   */
  async function readAcross(
    msgId: string,
    between: () => Promise<unknown>,
    deps = own.res,
  ): Promise<PipeMessageStatus> {
    const client = (await own.res.pipeRuntime.queue.client) as unknown as Redis;
    const send = client.sendCommand;
    let seen = 0;
    let ran: Promise<unknown> | undefined;
    client.sendCommand = (command, stream) => {
      const about = command.args.some((a) => String(a).includes(msgId));
      if (about && ++seen === 2 && !ran) {
        ran = between().then(
          () => send.call(client, command, stream),
          (err: Error) => command.reject(err),
        );
        return command.promise;
      }
      return send.call(client, command, stream);
    };
    try {
      return await pipeMessageStatus(deps, msgId, asker);
    } finally {
      client.sendCommand = send;
      await (ran ?? between());
    }
  }

  const view = (s: PipeMessageStatus) => ({
    status: s.status,
    attempts: s.attempts,
    sent_at: s.sent_at,
    upstream_msg_id: s.upstream_msg_id,
    not_permissions_mention: s.not_permissions_mention,
    error: s.error,
  });
  const queuedView = (attempts: number) => ({
    status: 'queued',
    attempts,
    sent_at: null,
    upstream_msg_id: null,
    not_permissions_mention: [],
    error: null,
  });

  it('a job that completes during the read: queued before, sent with its outcome after, never a mix', async () => {
    const msgId = `tear-sent-${Date.now()}`;
    // Its third run: two attempts failed before.
    const taken = await running(msgId, 2);
    const outcome = {
      sent_at: 1_700_000_000_900,
      upstream_msg_id: 'up-3',
      attempts: 3,
      not_permissions_mention: ['all'],
    };
    const sentView = { ...outcome, status: 'sent', error: null };
    const read = await readAcross(msgId, () => taken.moveToCompleted(outcome, TOKEN, false));
    expect([queuedView(2), sentView]).toContainEqual(view(read));
    expect(view(await pipeMessageStatus(own.res, msgId, asker))).toEqual(sentView);
  });

  it('a job that fails during the read: queued before, failed with reason and code after, never a bare failed', async () => {
    const msgId = `tear-failed-${Date.now()}`;
    const taken = await running(msgId);
    const failure = fail(REASON.NO_SEND_PERMISSION, {
      channel_id: 'chan-1',
      permission: 'send messages',
    });
    const failedView = {
      ...queuedView(1),
      status: 'failed',
      // in the reader's language, zh-CN by default
      error: { reason: 'NO_SEND_PERMISSION', code: 40323, message: failure.localizedMessage('zh-CN') },
    };
    // As process-message.ts does it: the failed record first, then the job fails with the reason.
    const dies = async () => {
      await markFailed(own.res, { msg_id: msgId, ...ids }, failure, 1, { ...job(msgId) });
      await taken.moveToFailed(new UnrecoverableError(REASON.NO_SEND_PERMISSION), TOKEN);
    };
    const read = await readAcross(msgId, dies);
    expect([queuedView(0), failedView]).toContainEqual(view(read));
    expect(view(await pipeMessageStatus(own.res, msgId, asker))).toEqual(failedView);
  });

  it('a record read from before the job failed is read again: failed with the record written meanwhile', async () => {
    const msgId = `tear-record-${Date.now()}`;
    const taken = await running(msgId);
    const failure = fail(REASON.TEMP_TARGET_NOT_MEMBER, { user_id: 'u-9' });
    // The record read answers (nothing yet) before the worker writes the record and fails the
    // job; only then does the read of the job leave.
    let recordRead!: () => void;
    const recordReadDone = new Promise<void>((resolve) => {
      recordRead = resolve;
    });
    const deliveries = own.res.store.deliveries;
    const deps = {
      ...own.res,
      store: {
        ...own.res.store,
        deliveries: {
          ...deliveries,
          get: async (id: string) => {
            const found = await deliveries.get(id);
            recordRead();
            return found;
          },
        },
      },
    };
    const client = (await own.res.pipeRuntime.queue.client) as unknown as Redis;
    const send = client.sendCommand;
    client.sendCommand = (command, stream) => {
      if (!command.args.some((a) => String(a).includes(msgId))) return send.call(client, command, stream);
      client.sendCommand = send;
      recordReadDone
        .then(async () => {
          await markFailed(own.res, { msg_id: msgId, ...ids }, failure, 1, { ...job(msgId) });
          await taken.moveToFailed(new UnrecoverableError(REASON.TEMP_TARGET_NOT_MEMBER), TOKEN);
        })
        .then(
          () => send.call(client, command, stream),
          (err: Error) => command.reject(err),
        );
      return command.promise;
    };
    try {
      expect(view(await pipeMessageStatus(deps, msgId, asker))).toEqual({
        ...queuedView(1),
        status: 'failed',
        error: { reason: 'TEMP_TARGET_NOT_MEMBER', code: 40325, message: failure.localizedMessage('zh-CN') },
      });
    } finally {
      client.sendCommand = send;
    }
  });

  it('a dead job whose failed record was lost reads failed, with the words of the retry record before it', async () => {
    const msgId = `tear-lost-${Date.now()}`;
    const taken = await running(msgId, 4);
    const retryRecord = {
      status: 'queued' as const,
      reason: 'UPSTREAM_UNAVAILABLE',
      code: 50001,
      message: 'The relay target is unavailable: HTTP 502: bad gateway',
      attempts: 4,
      retry_at: Date.now() - 1_000,
    };
    await own.res.store.deliveries.save(msgId, ids, retryRecord, Date.now());
    await taken.moveToFailed(new UnrecoverableError('UPSTREAM_UNAVAILABLE'), TOKEN);
    expect(view(await pipeMessageStatus(own.res, msgId, asker))).toEqual({
      ...queuedView(5),
      status: 'failed',
      error: { reason: 'UPSTREAM_UNAVAILABLE', code: 50001, message: retryRecord.message },
    });
  });

  it("words a retry's wait note in the reader's language (a note without parameters as it was noted)", async () => {
    const msgId = `noted-${Date.now()}`;
    await own.res.pipeRuntime.queue.add(PIPE_JOB_NAME, job(msgId), { jobId: msgId });
    const retryAt = Date.now() + 60_000;
    const english = 'The relay target is unavailable: HTTP 502: bad gateway';
    const note = {
      status: 'queued' as const,
      retry_at: retryAt,
      attempts: 1,
      reason: 'UPSTREAM_UNAVAILABLE',
      code: 50001,
      message: english,
    };
    const prefix = own.config.redisPrefix;
    await noteWait(
      own.res.redis,
      prefix,
      msgId,
      { ...note, params: { detail: 'HTTP 502: bad gateway' } },
      Date.now(),
    );
    expect((await pipeMessageStatus(own.res, msgId, asker)).error).toEqual({
      reason: 'UPSTREAM_UNAVAILABLE',
      code: 50001,
      message: '转发目标不可用：HTTP 502: bad gateway',
    });
    expect((await pipeMessageStatus(own.res, msgId, asker, 'en-US')).error?.message).toBe(english);
    await noteWait(own.res.redis, prefix, msgId, note, Date.now());
    expect((await pipeMessageStatus(own.res, msgId, asker)).error?.message).toBe(english);
  });
});
