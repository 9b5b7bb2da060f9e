import type { ServerResponse } from 'node:http';
import { type Job, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { PIPE_JOB_NAME, type PipeJob } from '../../src/queue/pipe-messages.js';
import type { DeliveryRecord } from '../../src/store/index.js';
import { processPipeJob } from '../../src/workers/delivery/process-message.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { JobTakenOverError } from '../../src/workers/worker-closing-error.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { WorkerProcesses } from '../helpers/worker-process.js';
import {
  answer,
  createPipe,
  createRelayWorld,
  createTemplate,
  directJobData,
  longText,
  ok,
  ownTestQueue,
  type RelayServer,
  sendPipe,
  startRelayServer,
  workerContext,
} from './helpers.js';

/**
 * DELIVERY_IN_DOUBT=hold: a relay message whose request may have reached the relay without its
 * answer being kept is failed with IN_DOUBT, never posted a second time by Herald itself; an
 * operator's replay posts it again. (With the default, resend, the re-run posts it again:
 * stalled.test.ts.) Workers are compiled processes so that a SIGKILL reaches the worker itself.
 */
const SETTINGS = {
  LOCK_DURATION_MS: '2000',
  STALLED_INTERVAL_MS: '500',
  RELAY_TIMEOUT_MS: '1500',
  DELIVERY_IN_DOUBT: 'hold',
};

let app: TestApp;
let relay: RelayServer;
let inProcess: RunningWorkers | undefined;
let workers: WorkerProcesses;
/** Answers the relay held back, so that the relay can be closed at the end. */
const held: ServerResponse[] = [];
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  app = await startTestApp('worker_in_doubt', { ...SETTINGS, METRICS_PORT: '0', HOST: '127.0.0.1' });
  relay = await startRelayServer();
  workers = new WorkerProcesses(app, SETTINGS);
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await workers?.killLeftovers();
  await inProcess?.close(2_000);
  for (const res of held) res.destroy();
  await relay?.close();
  await app?.close();
});

const recordOf = (msgId: string) => app.res.store.deliveries.get(msgId);
/** Waits until the message's record says `status`. */
const settledAs = (msgId: string, status: string) =>
  expect.poll(async () => (await recordOf(msgId))?.status, { timeout: 15_000, interval: 50 }).toBe(status);
/** The nonces the relay got since it had `before` requests. */
const noncesSince = (before: number) => relay.requests.slice(before).map((r) => r.body.nonce);

/** A relay bot of its own (`name`) with a pipe, and how many requests the relay had before it. */
async function relayPipe(
  name: string,
  bot: Record<string, unknown> = {},
  pipeOptions: Record<string, unknown> = {},
) {
  const w = await createRelayWorld(app, relay.url, {
    name,
    upstream_token: `tok-${name.replace(/ /g, '-')}`,
    ...bot,
  });
  const pipe = await createPipe(app, w, pipeOptions);
  return { w, pipe, before: relay.requests.length };
}

/** Starts a worker process and SIGKILLs it once the relay's requests since `before` are `nonces`. */
async function killOnceAsked(before: number, nonces: unknown[]): Promise<void> {
  const worker = workers.start();
  await expect
    .poll(() => noncesSince(before), {
      timeout: 20_000,
      interval: 10,
      message: `${worker.out.join('')} ${worker.err.join('')}`,
    })
    .toEqual(nonces);
  worker.child.kill('SIGKILL');
  await worker.exited;
  expect(worker.child.signalCode).toBe('SIGKILL');
}

describe('with DELIVERY_IN_DOUBT=hold', () => {
  it('a split message whose worker died while the relay held part 2 keeps part 1 sent, holds part 2, posts neither again', async () => {
    relay.handler = (body, res) => {
      if (String(body.nonce).endsWith('.2')) held.push(res);
      else ok(res, `up-${String(body.nonce)}`);
    };
    const { pipe, before } = await relayPipe('split doubt bot', { rate_capacity: 100, rate_per_second: 100 });
    const msgId = await sendPipe(app, pipe.token, { content: longText(20) });
    await killOnceAsked(before, [msgId, `${msgId}.2`]);
    const taking = await startWorkers(app.res, app.res.pipeRuntime.queue);
    try {
      await settledAs(msgId, 'failed');
    } finally {
      await taking.close(2_000);
    }
    expect(await recordOf(msgId)).toMatchObject({ reason: 'IN_DOUBT', code: 50004 });
    expect(String((await recordOf(msgId))?.message)).toContain('(part 2)');
    // Part 1 was answered and noted: not posted again; part 2 is held; part 3 never went.
    expect(noncesSince(before)).toEqual([msgId, `${msgId}.2`]);
  }, 60_000);

  it('a message whose worker died while the relay held its request is failed IN_DOUBT, not posted again; a replay posts it', async () => {
    let holding = true;
    relay.handler = (body, res) => {
      if (holding) held.push(res);
      else ok(res, `up-${String(body.nonce)}`);
    };
    const { pipe, before } = await relayPipe('in doubt bot');
    const msgId = await sendPipe(app, pipe.token, { content: 'did it arrive?' });
    await killOnceAsked(before, [msgId]);

    // A healthy worker takes the stalled job over and finds the relay was asked, no answer kept.
    inProcess = await startWorkers(app.res, app.res.pipeRuntime.queue);
    await settledAs(msgId, 'failed');
    expect(await recordOf(msgId)).toMatchObject({
      status: 'failed',
      reason: 'IN_DOUBT',
      code: 50004,
      sent_at: null,
    });
    expect(noncesSince(before)).toEqual([msgId]);
    const status = await app.request<Record<string, unknown>>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
      { headers: { Authorization: `Pipe ${pipe.token}` } },
    );
    expect(status.body.data).toMatchObject({ status: 'failed', error: { reason: 'IN_DOUBT', code: 50004 } });
    // Worded in the reader's language, Herald's own detail included (zh-CN unless asked).
    expect(String((status.body.data as { error: { message: string } }).error.message)).toContain(
      '询问转发目标时工作进程已停止',
    );
    const inEnglish = await app.request<{ error: { message: string } }>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
      { headers: { Authorization: `Pipe ${pipe.token}`, 'Accept-Language': 'en-US' } },
    );
    expect(inEnglish.body.data.error.message).toContain('the worker stopped while the relay was being asked');

    // The operator looked: not in the channel. A replay is a new job, which asks the relay again.
    holding = false;
    const replay = await app.request('POST', '/admin/api/delivery/replay', {
      admin: true,
      json: { msg_id: msgId },
    });
    expect(replay.status).toBe(200);
    await settledAs(msgId, 'sent');
    expect(noncesSince(before)).toEqual([msgId, msgId]);
    expect((await recordOf(msgId)) as DeliveryRecord).toMatchObject({
      upstream_msg_id: `up-${msgId}`,
      replays: 1,
    });
  }, 60_000);

  it('a relay that does not answer within RELAY_TIMEOUT_MS leaves the message IN_DOUBT at once, not retried', async () => {
    relay.handler = (_body, res) => {
      held.push(res);
    };
    const { pipe, before } = await relayPipe('silent relay bot');
    inProcess ??= await startWorkers(app.res, app.res.pipeRuntime.queue);
    const msgId = await sendPipe(app, pipe.token, { content: 'no answer' });
    await settledAs(msgId, 'failed');
    expect(await recordOf(msgId)).toMatchObject({ reason: 'IN_DOUBT', code: 50004, attempts: 1 });
    expect(noncesSince(before)).toEqual([msgId]);
  }, 30_000);

  it('a relay 500 is still retried: the relay said it did not take the message', async () => {
    relay.handler = (body, res, n) => {
      if (n === before + 1) answer(res, 500, { code: 500, message: 'busy' });
      else ok(res, `up-${String(body.nonce)}`);
    };
    const { pipe, before } = await relayPipe('busy relay bot');
    inProcess ??= await startWorkers(app.res, app.res.pipeRuntime.queue);
    const msgId = await sendPipe(app, pipe.token, { content: 'second time lucky' });
    await settledAs(msgId, 'sent');
    expect(await recordOf(msgId)).toMatchObject({ attempts: 2 });
    expect(noncesSince(before)).toEqual([msgId, msgId]);
  }, 30_000);

  it('a relay 429 is waited out and asked again: the relay said it did not take the message', async () => {
    relay.handler = (body, res, n) => {
      if (n === before + 1) answer(res, 429, { code: 429, message: 'slow down' }, { 'Retry-After': '0' });
      else ok(res, `up-${String(body.nonce)}`);
    };
    const { pipe, before } = await relayPipe('limited relay bot');
    inProcess ??= await startWorkers(app.res, app.res.pipeRuntime.queue);
    const msgId = await sendPipe(app, pipe.token, { content: 'after the wait' });
    await settledAs(msgId, 'sent');
    // The wait spent no attempt; its run after the wait found no note of a request left unanswered.
    expect(await recordOf(msgId)).toMatchObject({ attempts: 1, reason: null });
    expect(noncesSince(before)).toEqual([msgId, msgId]);
  }, 30_000);

  it('a relay that drops the connection once it has the request, or a gateway 504, leaves the message IN_DOUBT', async () => {
    relay.handler = (body, res) => {
      if (String(body.content).startsWith('drop')) res.socket?.destroy();
      else answer(res, 504, { code: 504, message: 'gateway timeout' });
    };
    const { pipe, before } = await relayPipe('dropping relay bot');
    inProcess ??= await startWorkers(app.res, app.res.pipeRuntime.queue);
    const dropped = await sendPipe(app, pipe.token, { content: 'drop me' });
    const gateway = await sendPipe(app, pipe.token, { content: 'behind a gateway' });
    for (const id of [dropped, gateway]) await settledAs(id, 'failed');
    expect(await recordOf(dropped)).toMatchObject({ reason: 'IN_DOUBT', attempts: 1 });
    expect(await recordOf(gateway)).toMatchObject({ reason: 'IN_DOUBT', attempts: 1 });
    expect(noncesSince(before)).toEqual([dropped, gateway]);
  }, 30_000);

  it("an update-mode group's first message, posted without an answer in time, is IN_DOUBT, not posted again", async () => {
    relay.handler = (_body, res) => {
      held.push(res);
    };
    const { w } = await relayPipe('update group bot');
    const template = await createTemplate(app, w, 'alert {{ data.alert }}');
    const pipe = await createPipe(app, w, {
      template_id: template,
      grouping: { key: '{{ data.group }}', mode: 'update', window_s: 3600 },
    });
    const before = relay.requests.length;
    inProcess ??= await startWorkers(app.res, app.res.pipeRuntime.queue);
    const msgId = await sendPipe(app, pipe.token, { group: 'g', alert: 'disk' });
    await settledAs(msgId, 'failed');
    expect(await recordOf(msgId)).toMatchObject({ reason: 'IN_DOUBT', attempts: 1 });
    expect(noncesSince(before)).toEqual([msgId]);
  }, 30_000);

  it('a run whose lock lapsed and was taken over stops before it asks the relay', async () => {
    relay.handler = (body, res) => ok(res, `up-${String(body.nonce)}`);
    const { w, pipe, before } = await relayPipe('starved worker bot');
    const ctx = await workerContext(
      app.res,
      closers,
      0,
      createLogger('error', () => {}),
    );
    // A queue of this test's own, whose job this test takes by hand.
    const { queue, connection } = ownTestQueue(app, closers, 'starved');
    const msgId = `starved-${Date.now()}`;
    await queue.add(PIPE_JOB_NAME, directJobData(w, pipe.id, { msg_id: msgId }), {
      jobId: msgId,
      attempts: 5,
    });
    const taker = new Worker<PipeJob>(queue.name, null, {
      connection: connection.duplicate(),
      prefix: app.config.redisPrefix,
    });
    closers.push(() => taker.close());
    const job = (await taker.getNextJob('starved-token')) as Job<PipeJob>;
    // The lock the run holds is where the note's script looks for it.
    expect(await connection.get(`${job.queueQualifiedName}:${msgId}:lock`)).toBe('starved-token');
    // Its lock lapsed and another worker holds the job now.
    await connection.set(`${job.queueQualifiedName}:${msgId}:lock`, 'other-token');
    await expect(processPipeJob(ctx, job, 'starved-token')).rejects.toBeInstanceOf(JobTakenOverError);
    expect(noncesSince(before)).toEqual([]);
    // With its own lock, the same run asks (and is answered).
    await connection.set(`${job.queueQualifiedName}:${msgId}:lock`, 'starved-token');
    await expect(processPipeJob(ctx, job, 'starved-token')).resolves.toMatchObject({
      upstream_msg_id: `up-${msgId}`,
    });
    expect(noncesSince(before)).toEqual([msgId]);
  }, 30_000);
});
