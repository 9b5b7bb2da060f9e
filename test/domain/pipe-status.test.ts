import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeMessageStatus } from '../../src/domain/pipes/status.js';
import { PIPE_JOB_NAME, PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * pipemsg-status between a job's completion and its write-behind `sent` record: the completed
 * job (its return value) answers, and wins over an older record.
 */
let app: TestApp;
let worker: Worker | undefined;
let connection: Redis;

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
});

afterAll(async () => {
  await worker?.close();
  connection?.disconnect();
  await app?.close();
});

describe('pipeMessageStatus with write-behind sent records', () => {
  it('reports sent from the completed job, also over an older record', async () => {
    const msgId = `status-${Date.now()}`;
    // A worker that sends and returns its outcome, but whose record is not in the store yet.
    worker = new Worker(
      PIPE_QUEUE,
      async () => ({
        sent_at: 1_700_000_000_500,
        upstream_msg_id: 'up-1',
        attempts: 2,
        not_permissions_mention: [],
      }),
      { connection, prefix: app.config.redisPrefix },
    );
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
