import { readFileSync } from 'node:fs';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DependencyError } from '../../../src/errors/index.js';
import { createLogger } from '../../../src/log/logger.js';
import { PIPE_JOB_NAME, PIPE_QUEUE, type PipeJob } from '../../../src/queue/pipe-messages.js';
import { messagePartsKey } from '../../../src/redis/keys.js';
import { MAX_MESSAGE_LENGTH, TRUNCATION_MARKER } from '../../../src/render/index.js';
import { mbLength as codePoints } from '../../../src/render/twig/runtime/mb.js';
import type { TimelineMessage } from '../../../src/store/messages.js';
import { processPipeJob } from '../../../src/workers/delivery/process-message.js';
import { waitOutDependencyErrors } from '../../../src/workers/recovery/dependency-wait.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  answer,
  createPipe,
  createRelayWorld,
  createTemplate,
  createWorld,
  directJobData,
  longText,
  ok,
  startRelayServer,
  workerContext,
} from '../helpers.js';

/**
 * Messages that always fit (docs/pipes.md): a message over the platform's limits sent as several
 * in order, within its one job, on the real Redis (BullMQ) and store, with the worker's own parts
 * (no render threads: templates render on the main thread, as RENDER_THREADS=0 does).
 */
let app: TestApp;
const closers: Array<() => Promise<unknown>> = [];
const silent = createLogger('error', () => {});

beforeAll(async () => {
  app = await startTestApp('fit');
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await app?.close();
});

/** The worker's parts (caches, budgets, a sent log whose flusher runs), rendering on the main thread. */
async function worker() {
  const ctx = await workerContext(app.res, closers, 0, silent);
  await ctx.sentLog.start();
  closers.push(() => ctx.sentLog.close());
  return ctx;
}

/** A queue of this test's own, and a worker on it running processPipeJob with `ctx`. */
async function ownQueue(label: string, ctx: Awaited<ReturnType<typeof workerContext>>, run = true) {
  const name = `${PIPE_QUEUE}-fit-${label}-${Date.now()}`;
  const connection = new Redis(app.config.redisUrl, { maxRetriesPerRequest: null });
  closers.push(async () => connection.disconnect());
  const queue = new Queue<PipeJob>(name, { connection, prefix: app.config.redisPrefix });
  closers.push(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  const start = () => {
    const worker = new Worker<PipeJob>(
      name,
      waitOutDependencyErrors((j, token) => processPipeJob(ctx, j, token), 20, silent),
      {
        connection: connection.duplicate(),
        prefix: app.config.redisPrefix,
        stalledInterval: 100,
      },
    );
    closers.push(() => worker.close());
    return worker;
  };
  if (run) start();
  return { name, queue, connection, start };
}

async function finished(queue: Queue<PipeJob>, msgId: string) {
  await expect
    .poll(async () => (await queue.getJob(msgId))?.finishedOn, { timeout: 15_000, interval: 20 })
    .toBeGreaterThan(0);
  return queue.getJob(msgId);
}

const status = (msgId: string, token: string) =>
  app.request<Record<string, unknown>>(
    'GET',
    `/api/v3/message/pipemsg-status?msg_id=${msgId}&access_token=${token}`,
  );

describe('the overflow option', () => {
  it('is split by default, set on create and update, shown, and checked', async () => {
    const w = await createWorld(app);
    const made = await createPipe(app, w);
    const view = async (id: string) =>
      (
        await app.request<{ pipe: { overflow: string } }>('GET', `/admin/api/pipe/view?id=${id}`, {
          admin: true,
        })
      ).body.data.pipe;
    expect((await view(made.id)).overflow).toBe('split');
    const cut = await createPipe(app, w, { overflow: 'truncate' });
    expect((await view(cut.id)).overflow).toBe('truncate');
    const updated = await app.request('POST', '/admin/api/pipe/update', {
      admin: true,
      json: { id: made.id, overflow: 'fail' },
    });
    expect(updated.status).toBe(200);
    expect((await view(made.id)).overflow).toBe('fail');
    const bad = await app.request<unknown>('POST', '/admin/api/pipe/update', {
      admin: true,
      json: { id: made.id, overflow: 'squeeze' },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('overflow');
  });
});

describe('a message over the limits, store sink', () => {
  it('is split into messages in order, each its own id, all listed by the record and pipemsg-status', async () => {
    const w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
    const pipe = await createPipe(app, w);
    const ctx = await worker();
    const { queue } = await ownQueue('store', ctx);
    const text = longText(20);
    const msgId = `fit-store-${Date.now()}`;
    await queue.add(PIPE_JOB_NAME, directJobData(w, pipe.id, { msg_id: msgId, input: text }), {
      jobId: msgId,
    });
    const job = await finished(queue, msgId);
    expect(await job?.getState()).toBe('completed');
    const ids = [msgId, `${msgId}.2`, `${msgId}.3`];
    expect((job?.returnvalue as { parts?: unknown } | undefined)?.parts).toEqual(
      ids.map((id) => ({ msg_id: id, upstream_msg_id: null })),
    );
    const stored = (await app.res.store.messages.getMany([...ids, `${msgId}.4`])).sort((a, b) =>
      a.create_at === b.create_at ? ids.indexOf(a.id) - ids.indexOf(b.id) : a.create_at - b.create_at,
    );
    expect(stored.map((m) => m.id)).toEqual(ids);
    for (const m of stored) expect(codePoints(m.content)).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(stored.map((m) => m.content).join('\n\n')).toBe(text);
    // The record lands from the sent log, with every part.
    await expect
      .poll(async () => (await app.res.store.deliveries.get(msgId))?.status, { timeout: 10_000 })
      .toBe('sent');
    expect((await app.res.store.deliveries.get(msgId))?.parts).toEqual(
      ids.map((id) => ({ msg_id: id, upstream_msg_id: null })),
    );
    const counted = (await ctx.metrics.partsSent.get()).values.find((v) => v.labels.sink === 'store');
    expect(counted?.value).toBeGreaterThanOrEqual(3);
    const s = await status(msgId, pipe.token);
    expect(s.body.data).toMatchObject({
      msg_id: msgId,
      status: 'sent',
      upstream_msg_id: null,
      parts: ids.map((id) => ({ msg_id: id, upstream_msg_id: null })),
    });
  });

  it('splits a card template over 5 cards and 50 modules into valid card messages, in order', async () => {
    const w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
    const template = await createTemplate(
      app,
      w,
      '[{% for c in 1..8 %}{"type":"card","theme":"warning","modules":[{% for m in 1..20 %}{"type":"section","text":{"type":"kmarkdown","content":"c{{ c }} m{{ m }}"}}{% if not loop.last %},{% endif %}{% endfor %}]}{% if not loop.last %},{% endif %}{% endfor %}]',
      2,
    );
    const pipe = await createPipe(app, w, { template_id: template });
    const ctx = await worker();
    const { queue } = await ownQueue('cards', ctx);
    const msgId = `fit-cards-${Date.now()}`;
    await queue.add(
      PIPE_JOB_NAME,
      directJobData(w, pipe.id, {
        msg_id: msgId,
        template_id: template,
        input: Buffer.from('{}').toString('base64'),
        input_encoding: 'base64',
      }),
      { jobId: msgId },
    );
    const job = await finished(queue, msgId);
    expect(await job?.getState()).toBe('completed');
    // 8 cards of 20 modules: 2 whole cards per message (40 modules), 4 messages.
    const ids = [msgId, `${msgId}.2`, `${msgId}.3`, `${msgId}.4`];
    const stored = await app.res.store.messages.getMany(ids);
    const byId = new Map(stored.map((m) => [m.id, m] as const));
    const cards = ids.map(
      (id) =>
        JSON.parse((byId.get(id) as TimelineMessage).content) as Array<{
          theme: string;
          modules: Array<{ text: { content: string } }>;
        }>,
    );
    expect(cards.map((m) => m.map((c) => c.modules.length))).toEqual([
      [20, 20],
      [20, 20],
      [20, 20],
      [20, 20],
    ]);
    expect(cards.flat().every((c) => c.theme === 'warning')).toBe(true);
    expect(cards.flat().flatMap((c) => c.modules.map((m) => m.text.content))[41]).toBe('c3 m2');
  });

  it("docs/pipes.md's example: a GitLab push of 60 commits through the push card goes as 50, 50 and 21 modules", async () => {
    const gitlab = new URL('../../fixtures/gitlab/', import.meta.url);
    const push = JSON.parse(readFileSync(new URL('push-large.json', gitlab), 'utf8')) as {
      commits: Array<{ id: string }>;
      total_commits_count: number;
    };
    const commits = Array.from({ length: 60 }, (_, i) => ({
      ...(push.commits[i % push.commits.length] as { id: string }),
      id: `${String(i).padStart(8, '0')}${'f'.repeat(32)}`,
    }));
    const body = JSON.stringify({ ...push, commits, total_commits_count: 60 });
    const w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
    const template = await createTemplate(
      app,
      w,
      readFileSync(new URL('push-card.json.twig', gitlab), 'utf8'),
      2,
    );
    const pipe = await createPipe(app, w, { template_id: template });
    const ctx = await worker();
    const { queue } = await ownQueue('gitlab', ctx);
    const msgId = `fit-gitlab-${Date.now()}`;
    const data = { msg_id: msgId, template_id: template, input: Buffer.from(body).toString('base64') };
    await queue.add(PIPE_JOB_NAME, directJobData(w, pipe.id, { ...data, input_encoding: 'base64' }), {
      jobId: msgId,
    });
    expect(await (await finished(queue, msgId))?.getState()).toBe('completed');
    const ids = [msgId, `${msgId}.2`, `${msgId}.3`];
    const stored = new Map((await app.res.store.messages.getMany(ids)).map((m) => [m.id, m] as const));
    const modules = ids.map((id) =>
      (JSON.parse(stored.get(id)?.content ?? '[]') as Array<{ modules: unknown[] }>).map(
        (c) => c.modules.length,
      ),
    );
    expect(modules).toEqual([[50], [50], [21]]);
  });

  it('truncates with a marker where the pipe says so, and fails where it says fail', async () => {
    const w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
    const cut = await createPipe(app, w, { overflow: 'truncate' });
    const strict = await createPipe(app, w, { overflow: 'fail' });
    const ctx = await worker();
    const { queue } = await ownQueue('truncate', ctx);
    const a = `fit-cut-${Date.now()}`;
    const b = `fit-fail-${Date.now()}`;
    await queue.add(PIPE_JOB_NAME, directJobData(w, cut.id, { msg_id: a, input: longText(12) }), {
      jobId: a,
    });
    await queue.add(PIPE_JOB_NAME, directJobData(w, strict.id, { msg_id: b, input: longText(12) }), {
      jobId: b,
      attempts: 1,
    });
    await finished(queue, a);
    await finished(queue, b);
    const stored = await app.res.store.messages.get(a);
    expect(stored?.content.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(codePoints(stored?.content ?? '')).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(await app.res.store.messages.get(`${a}.2`)).toBeNull();
    expect((await queue.getJob(a))?.returnvalue).not.toHaveProperty('parts');
    expect(await app.res.store.deliveries.get(b)).toMatchObject({
      status: 'failed',
      reason: 'MESSAGE_TOO_LONG',
    });
  });

  it('is sent on from the first part not sent after a run cut short between parts', async () => {
    const w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
    const pipe = await createPipe(app, w);
    const ctx = await worker();
    // The store goes away after the first part's insert: the run is cut short (put off by
    // dependency-wait.ts, no attempt spent) and runs again.
    const inserts: string[] = [];
    const messages = ctx.deps.store.messages;
    let down = true;
    const store = {
      ...ctx.deps.store,
      messages: {
        ...messages,
        insert: async (m: TimelineMessage) => {
          inserts.push(m.id);
          if (down && m.id.endsWith('.2')) {
            down = false;
            throw new DependencyError('database');
          }
          return messages.insert(m);
        },
      },
    };
    const cutCtx = { ...ctx, deps: { ...ctx.deps, store } };
    const { queue } = await ownQueue('cut', cutCtx);
    const msgId = `fit-cut-short-${Date.now()}`;
    const text = longText(20);
    await queue.add(PIPE_JOB_NAME, directJobData(w, pipe.id, { msg_id: msgId, input: text }), {
      jobId: msgId,
      attempts: 1,
    });
    const job = await finished(queue, msgId);
    expect(await job?.getState()).toBe('completed');
    // The first part went once; the second was tried, then sent by the next run with the third.
    expect(inserts).toEqual([msgId, `${msgId}.2`, `${msgId}.2`, `${msgId}.3`]);
    const stored = await app.res.store.messages.getMany([msgId, `${msgId}.2`, `${msgId}.3`]);
    expect(stored).toHaveLength(3);
    expect((job?.returnvalue as { parts?: unknown[] } | undefined)?.parts).toHaveLength(3);
    expect(await app.res.redis.hget(messagePartsKey(app.config.redisPrefix, msgId), 'n')).toBe('3');
  });
});

describe('a message over the limits, relay sink', () => {
  it('after a crash past the first part, the run that takes the stalled job posts only the rest', async () => {
    const relay = await startRelayServer();
    closers.push(() => relay.close());
    const w = await createRelayWorld(app, relay.url, { name: 'fit crash bot', upstream_token: 'tok-fit' });
    const pipe = await createPipe(app, w);
    const ctx = await worker();
    const { name, queue, connection, start } = await ownQueue('crash', ctx, false);
    const msgId = `fit-crash-${Date.now()}`;
    await queue.add(PIPE_JOB_NAME, directJobData(w, pipe.id, { msg_id: msgId, input: longText(20) }), {
      jobId: msgId,
      attempts: 5,
    });
    // The first run: the relay takes the first part, then fails the second (a 5xx); the process
    // dies before the job is moved on, so its lock lapses.
    relay.handler = (body, res, n) =>
      n === 2 ? answer(res, 503, { code: 503 }) : ok(res, `up-${String(body.nonce)}`);
    const dying = new Worker<PipeJob>(name, null, {
      connection: connection.duplicate(),
      prefix: app.config.redisPrefix,
      lockDuration: 300,
    });
    closers.push(() => dying.close());
    const job = await dying.getNextJob('dying-token');
    await expect(processPipeJob(ctx, job as Job<PipeJob>, 'dying-token')).rejects.toThrow();
    expect(relay.requests.map((r) => r.body.nonce)).toEqual([msgId, `${msgId}.2`]);

    start();
    const done = await finished(queue, msgId);
    expect(done?.stalledCounter).toBe(1);
    expect(await done?.getState()).toBe('completed');
    // The first part is not posted again; the rest are, in order.
    expect(relay.requests.map((r) => r.body.nonce)).toEqual([
      msgId,
      `${msgId}.2`,
      `${msgId}.2`,
      `${msgId}.3`,
    ]);
    const parts = [msgId, `${msgId}.2`, `${msgId}.3`].map((id) => ({
      msg_id: id,
      upstream_msg_id: `up-${id}`,
    }));
    expect(done?.returnvalue).toMatchObject({ upstream_msg_id: `up-${msgId}`, parts });
    await expect
      .poll(async () => (await app.res.store.deliveries.get(msgId))?.status, { timeout: 10_000 })
      .toBe('sent');
    expect((await app.res.store.deliveries.get(msgId))?.parts).toEqual(parts);
  });

  it('waits out a 429 in the middle and goes on from the next part not sent, each part paying a token', async () => {
    const relay = await startRelayServer();
    closers.push(() => relay.close());
    // A budget of 2 at once and 1000 per second: three parts cannot all go in the first burst.
    const w = await createRelayWorld(app, relay.url, {
      name: 'fit 429 bot',
      upstream_token: 'tok-429',
      rate_capacity: 2,
      rate_per_second: 20,
    });
    const pipe = await createPipe(app, w);
    const ctx = await worker();
    const { queue } = await ownQueue('429', ctx);
    relay.handler = (body, res, n) =>
      n === 2
        ? answer(res, 429, { code: 429 }, { 'X-Rate-Limit-Reset': '0.05' })
        : ok(res, `up-${String(body.nonce)}`);
    const msgId = `fit-429-${Date.now()}`;
    await queue.add(PIPE_JOB_NAME, directJobData(w, pipe.id, { msg_id: msgId, input: longText(20) }), {
      jobId: msgId,
    });
    const done = await finished(queue, msgId);
    expect(await done?.getState()).toBe('completed');
    expect(relay.requests.map((r) => r.body.nonce)).toEqual([
      msgId,
      `${msgId}.2`,
      `${msgId}.2`,
      `${msgId}.3`,
    ]);
    // Four posts the relay saw, on a budget of 2 + 20/s: the last came at least 2 refills after the first.
    const at = relay.requests.map((r) => r.at);
    expect((at[3] as number) - (at[0] as number)).toBeGreaterThanOrEqual(2 * 50 - 10);
  });
});
