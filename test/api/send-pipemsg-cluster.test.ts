import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Two web processes (two apps with their own connections, caches and subscriptions) on one
 * database and one Redis prefix: a change made through one is in force in the other at once.
 */
let a: TestApp;
let b: TestApp;
let botId: string;
let channelId: string;

interface Created {
  pipe: { id: string };
  access_token: string;
}

const send = (app: TestApp, token: string, content = 'hello', headers: Record<string, string> = {}) =>
  app.request<{ msg_id: string }>('POST', `/api/v3/message/send-pipemsg?access_token=${token}`, {
    json: { content },
    headers,
  });

async function createPipe(): Promise<Created> {
  const r = await a.request<Created>('POST', '/admin/api/pipe/create', {
    admin: true,
    json: { bot_id: botId, title: 'two processes', channel_id: channelId },
  });
  if (r.status !== 200) throw new Error(r.text);
  return r.body.data;
}

beforeAll(async () => {
  a = await startTestApp('pipes_cluster');
  b = await startTestApp('pipes_cluster_b', {}, { sharedWith: a });
  const bot = await createTestBot(a);
  botId = bot.id;
  const guild = await createTestGuild(a);
  channelId = (await createTestChannel(a, guild.id)).id;
  await addTestMember(a, guild.id, bot.bot.user_id as string);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('a second web process', () => {
  it('shares the prefix and database', () => {
    expect(b.config.redisPrefix).toBe(a.config.redisPrefix);
    expect(b.base).not.toBe(a.base);
  });

  it('refuses the old token as soon as the rotation through the first one has answered', async () => {
    const { pipe, access_token } = await createPipe();
    // Both processes have the pipe cached.
    expect((await send(a, access_token)).status).toBe(200);
    expect((await send(b, access_token)).status).toBe(200);
    expect(b.res.pipeRuntime.pipes.size).toBeGreaterThan(0);
    const rotated = await a.request<{ access_token: string }>('POST', '/admin/api/pipe/rotate-token', {
      admin: true,
      json: { id: pipe.id },
    });
    expect(rotated.status).toBe(200);
    expect((await send(b, access_token)).status).toBe(401);
    expect((await send(a, access_token)).status).toBe(401);
    expect((await send(b, rotated.body.data.access_token)).status).toBe(200);
  });

  it('refuses a disabled pipe and a deleted pipe in the other process at once', async () => {
    const { pipe, access_token } = await createPipe();
    expect((await send(b, access_token)).status).toBe(200);
    await a.request('POST', '/admin/api/pipe/update', { admin: true, json: { id: pipe.id, enabled: false } });
    expect((await send(b, access_token)).status).toBe(401);
    await a.request('POST', '/admin/api/pipe/update', { admin: true, json: { id: pipe.id, enabled: true } });
    expect((await send(b, access_token)).status).toBe(200);
    await a.request('POST', '/admin/api/pipe/delete', { admin: true, json: { id: pipe.id } });
    expect((await send(b, access_token)).status).toBe(401);
  });

  it('serves a pipe created through the other process at once', async () => {
    const { access_token } = await createPipe();
    expect((await send(b, access_token)).status).toBe(200);
  });

  it('shares a busy pipe budget: both together never accept more than capacity + rate x t', async () => {
    // A burst of 100 (large enough for leases), refilled at 20/s, under 400 requests from both
    // processes at once. A fixed count rather than a fixed time: a slow machine must still send
    // more than the budget (it would need over 15 s for 400 requests to fit in 100 + 20 x t).
    const capacity = 100;
    const perSecond = 20;
    const total = 400;
    const r = await a.request<Created>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: {
        bot_id: botId,
        title: 'busy',
        channel_id: channelId,
        rate_limit: { capacity, per_second: perSecond },
      },
    });
    expect(r.status).toBe(200);
    const token = r.body.data.access_token;
    const statuses = { a: [] as number[], b: [] as number[] };
    let sent = 0;
    const started = performance.now();
    const loop = async (app: TestApp, into: number[]) => {
      while (sent < total) {
        sent++;
        into.push((await send(app, token, 'load')).status);
      }
    };
    await Promise.all([
      ...Array.from({ length: 12 }, () => loop(a, statuses.a)),
      ...Array.from({ length: 12 }, () => loop(b, statuses.b)),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const all = [...statuses.a, ...statuses.b];
    const accepted = all.filter((s) => s === 200).length;
    expect(all).toHaveLength(total);
    expect(all.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(accepted).toBeLessThan(total); // the load went over the budget
    expect(accepted).toBeLessThanOrEqual(capacity + perSecond * seconds);
    // At least the burst, less what each process may still hold leased (1/16 of the bucket).
    expect(accepted).toBeGreaterThanOrEqual(capacity - 2 * Math.ceil(capacity / 16));
    expect(statuses.a.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(statuses.b.filter((s) => s === 200).length).toBeGreaterThan(0);
  });

  it('shares idempotency: one key across both processes stores one message', async () => {
    const { access_token } = await createPipe();
    const h = { 'Idempotency-Key': 'cross-process' };
    const first = await send(a, access_token, 'once', h);
    const second = await send(b, access_token, 'once', h);
    expect(first.status).toBe(200);
    expect(second.body.data.msg_id).toBe(first.body.data.msg_id);
  });
});
