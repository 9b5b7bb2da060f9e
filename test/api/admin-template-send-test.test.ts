import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION } from '../../src/domain/permissions.js';
import { STUDIO_TEST_PIPE_ID } from '../../src/queue/pipe-messages.js';
import type { DeliveryRecord } from '../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { call, type SignedIn, signIn, useConsoleDir } from '../helpers/console.js';
import { createTestChannel } from '../helpers/directory.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, createWorld, enqueueDirect, sendPipe, type World } from '../workers/helpers.js';

/**
 * What the studio's review and test messages do once a worker takes them (this process's worker,
 * on the real Redis and store): "send to test channel" delivered through the bot's queue, checks
 * and budget; a template in review still sends, a banned one does not; an approved template
 * costs less of the bot's budget; a type that disagrees with the template fails in the worker.
 */

const dir = useConsoleDir();
let app: TestApp;
let workers: RunningWorkers;
let w: World;
let session: SignedIn;

type Envelope<T> = { status: number; code: number; message: string; data: T; headers: Headers };
async function op<T = Record<string, unknown>>(
  method: string,
  path: string,
  json?: unknown,
): Promise<Envelope<T>> {
  const r = await app.request<T>(method, path, { admin: true, json });
  return { status: r.status, headers: r.headers, ...r.body };
}
async function asBot<T = Record<string, unknown>>(path: string, json: unknown): Promise<Envelope<T>> {
  const r = await call(app, 'POST', path, { cookie: session.cookie, csrf: session.csrf, json });
  return { status: r.status, headers: r.headers, ...(r.body as { code: number; message: string; data: T }) };
}
async function template(world: World, json: Record<string, unknown>): Promise<string> {
  const r = await op<{ model: { id: string } }>('POST', '/admin/api/template/create', {
    bot_id: world.bot.id,
    title: 'studio test',
    ...json,
  });
  if (r.status !== 200) throw new Error(JSON.stringify(r));
  return r.data.model.id;
}
const record = (msgId: string) => app.res.store.deliveries.get(msgId);
async function settled(msgId: string, timeout = 15_000): Promise<DeliveryRecord> {
  await expect
    .poll(async () => (await record(msgId))?.status, { timeout, interval: 50 })
    .toMatch(/^(sent|failed)$/);
  return (await record(msgId)) as DeliveryRecord;
}

beforeAll(async () => {
  app = await startTestApp('admin_template_send_test', {
    CONSOLE_DIR: dir,
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
  });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
  w = await createWorld(app, { name: 'studio sender', rate_capacity: 1000, rate_per_second: 1000 });
  session = await signIn(app, w.bot.token, 'bot');
});
afterAll(async () => {
  await workers?.close(2_000);
  await app?.close();
});

describe('send to test channel', () => {
  it("delivers a stored template's preview to its test_channel, recorded and listed like any message", async () => {
    const id = await template(w, {
      content: '**{{ data.who }}** in {{ PLATFORM.getChannel().name }}',
      test_data: '{"who":"Ann"}',
      test_channel: w.channelId,
    });
    const r = await asBot<{ msg_id: string }>('/admin/api/template/send-test', { id });
    expect([r.status, Object.keys(r.data)]).toEqual([200, ['msg_id']]);
    expect(r.headers.get('x-rate-limit-bucket')).toBe('template/send-test');
    const rec = await settled(r.data.msg_id);
    expect(rec).toMatchObject({
      status: 'sent',
      bot_id: w.bot.id,
      pipe_id: STUDIO_TEST_PIPE_ID,
      channel_id: w.channelId,
      attempts: 1,
    });
    // In the channel's timeline, exactly as the preview showed it.
    const preview = await asBot<{ type: number; content: string }>('/admin/api/template/render', { id });
    expect(preview.data).toEqual({
      type: 9,
      content: '**Ann** in test channel',
      warnings: [],
      warning_count: 0,
    });
    expect(await app.res.store.messages.get(r.data.msg_id)).toMatchObject({
      type: 9,
      content: '**Ann** in test channel',
      bot_id: w.bot.id,
      channel_id: w.channelId,
    });
    // Listed in Deliveries (the bot's), with the message as sent.
    const list = await op<{ items: DeliveryRecord[] }>(
      'GET',
      `/admin/api/delivery/list?bot_id=${w.bot.id}&status=sent`,
    );
    expect(list.data.items.map((d) => d.msg_id)).toContain(r.data.msg_id);
    const viewed = await op<{ delivery: { rendered: unknown } }>(
      'GET',
      `/admin/api/delivery/view?msg_id=${r.data.msg_id}`,
    );
    expect(viewed.data.delivery.rendered).toEqual({ type: 9, content: '**Ann** in test channel' });
    // The bot's developer follows it in the studio too; another bot's session is told nothing.
    const own = await call(app, 'GET', `/admin/api/delivery/view?msg_id=${r.data.msg_id}`, {
      cookie: session.cookie,
    });
    expect([
      own.status,
      (own.body?.data as { delivery: { status: string } } | undefined)?.delivery.status,
    ]).toEqual([200, 'sent']);
    const other = await createWorld(app, { name: 'nosy bot' });
    const nosy = await signIn(app, other.bot.token, 'bot');
    const foreign = await call(app, 'GET', `/admin/api/delivery/view?msg_id=${r.data.msg_id}`, {
      cookie: nosy.cookie,
    });
    expect([foreign.status, foreign.body?.code]).toEqual([404, 40401]);
    const listed = await call(app, 'GET', `/admin/api/delivery/list?bot_id=${w.bot.id}`, {
      cookie: session.cookie,
    });
    expect(listed.status).toBe(403);
  });

  it("sends the editor's unsaved card with other data to another channel", async () => {
    const other = await createTestChannel(app, w.guildId, { name: 'second' });
    const body = {
      content: '- type: card\n  modules:\n    - type: header\n      text: "{{ data.title|yaml_escape }}"',
      msgtype: 3,
      data: { title: 'Deploy "done"' },
      channel_id: other.id,
    };
    const r = await asBot<{ msg_id: string }>('/admin/api/template/send-test', body);
    expect(r.status).toBe(200);
    const rec = await settled(r.data.msg_id);
    expect([rec.status, rec.channel_id]).toEqual(['sent', other.id]);
    const preview = await asBot<{ type: number; content: string }>('/admin/api/template/render', body);
    expect(preview.data.content).toContain('Deploy \\"done\\"');
    expect(await app.res.store.messages.get(r.data.msg_id)).toMatchObject({
      type: preview.data.type,
      content: preview.data.content,
    });
    expect(preview.data.type).toBe(10);
  });

  it('an operator sends for the bot it names; the worker still checks the permission to send', async () => {
    const mute = await createWorld(
      app,
      { name: 'muted bot' },
      { everyone_permissions: PERMISSION.VIEW_CHANNELS },
    );
    const r = await op<{ msg_id: string }>('POST', '/admin/api/template/send-test', {
      bot_id: mute.bot.id,
      content: 'hello',
      channel_id: mute.channelId,
    });
    expect(r.status).toBe(200);
    const rec = await settled(r.data.msg_id);
    expect(rec).toMatchObject({
      status: 'failed',
      reason: 'NO_SEND_PERMISSION',
      pipe_id: STUDIO_TEST_PIPE_ID,
    });
  });

  it('refuses, before queuing, what cannot be a test message', async () => {
    const noChannel = await template(w, { content: 'x' });
    const cases: Array<[unknown, number, number, Record<string, unknown>]> = [
      // No channel given, and the template has no test_channel.
      [{ id: noChannel }, 400, 40000, { field: 'channel_id' }],
      [{ content: 'x' }, 400, 40000, { field: 'channel_id' }],
      // Not a text channel.
      [
        {
          content: 'x',
          channel_id: (await createTestChannel(app, w.guildId, { type: 2, name: 'voice' })).id,
        },
        400,
        40000,
        { field: 'channel_id' },
      ],
      // A render error, with where.
      [{ content: '{{ data.x|nope }}', channel_id: w.channelId }, 400, 40010, { line: 1 }],
      // A channel the bot has not joined.
      [{ content: 'x', channel_id: '12345678' }, 404, 40401, { field: 'channel_id' }],
    ];
    const before = await app.res.pipeRuntime.queue.count();
    for (const [json, status, code, data] of cases) {
      const r = await asBot('/admin/api/template/send-test', json);
      expect([r.status, r.code], JSON.stringify(json)).toEqual([status, code]);
      expect(r.data).toMatchObject(data);
    }
    expect(await app.res.pipeRuntime.queue.count()).toBe(before);
  });

  it("a disabled bot's test message is refused (409 40933)", async () => {
    const off = await createWorld(app, { name: 'disabled later' });
    await op('POST', '/admin/api/bot/update', { id: off.bot.id, enabled: false });
    const r = await op('POST', '/admin/api/template/send-test', {
      bot_id: off.bot.id,
      content: 'x',
      channel_id: off.channelId,
    });
    expect([r.status, r.code]).toEqual([409, 40933]);
    expect(r.message).toContain(off.bot.id);
  });

  it('the worker sends a studio message only into the server it was accepted for', async () => {
    const otherWorld = await createWorld(app, { name: 'elsewhere' });
    const msgId = await enqueueDirect(app, w, '', {
      pipe_id: STUDIO_TEST_PIPE_ID,
      type: 9,
      input: 'x',
      // A channel of another server than the job names.
      channel_id: otherWorld.channelId,
    });
    expect(await settled(msgId)).toMatchObject({ status: 'failed', reason: 'CHANNEL_NOT_TEXT' });
  });
});

describe('review and sending', () => {
  it('a template in review still sends; banned, its messages fail with TEMPLATE_BANNED; unbanned, they send', async () => {
    const id = await template(w, { content: 'n={{ data.n }}' });
    const pipe = await createPipe(app, w, { template_id: id });
    await op('POST', '/admin/api/template/submit', { id });
    expect((await settled(await sendPipe(app, pipe.token, { n: 1 }))).status).toBe('sent');
    expect((await op('POST', '/admin/api/template/review', { id, action: 'ban' })).status).toBe(200);
    const banned = await settled(await sendPipe(app, pipe.token, { n: 2 }));
    expect(banned).toMatchObject({ status: 'failed', reason: 'TEMPLATE_BANNED', code: 40021 });
    expect(banned.message).toContain(id);
    await op('POST', '/admin/api/template/review', { id, action: 'unban' });
    expect((await settled(await sendPipe(app, pipe.token, { n: 3 }))).status).toBe('sent');
    // Deleted: no more.
    await op('POST', '/admin/api/template/delete', { id });
    expect(await settled(await sendPipe(app, pipe.token, { n: 4 }))).toMatchObject({
      status: 'failed',
      reason: 'TEMPLATE_DELETED',
    });
  });

  it('an approved template sends more messages under the same bot limit than an unreviewed one', async () => {
    // Both bots: 2 tokens, refilled at one per 2.5 s. At the approved 0.5 (the default of
    // APPROVED_TEMPLATE_CONSUMPTION) four messages fit in the burst; at 1, two do and the third
    // waits 2.5 s.
    const limits = { rate_capacity: 2, rate_per_second: 0.4 };
    const approvedBot = await createWorld(app, { name: 'approved bot', ...limits });
    const plainBot = await createWorld(app, { name: 'unreviewed bot', ...limits });
    const approved = await template(approvedBot, { content: 'a={{ data.n }}' });
    await op('POST', '/admin/api/template/submit', { id: approved });
    const verdict = await op<{ model: { consumption: number } }>('POST', '/admin/api/template/review', {
      id: approved,
      action: 'approve',
    });
    expect(verdict.data.model.consumption).toBe(0.5);
    const unreviewed = await template(plainBot, { content: 'u={{ data.n }}' });
    const pa = await createPipe(app, approvedBot, { template_id: approved });
    const pu = await createPipe(app, plainBot, { template_id: unreviewed });
    const sentA: string[] = [];
    const sentU: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      sentA.push(await sendPipe(app, pa.token, { n }));
      sentU.push(await sendPipe(app, pu.token, { n }));
    }
    const approvedRecords = await Promise.all(sentA.map((id) => settled(id)));
    expect(approvedRecords.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    // None of the approved bot's four was put off: their histories hold no rate-limit wait.
    const histories = await Promise.all(sentA.map((id) => app.res.store.deliveries.detail(id)));
    expect(histories.map((d) => d?.history.some((e) => e.status === 'sent'))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      histories.flatMap((d) => d?.history.map((e) => e.status) ?? []).filter((s) => s === 'rate_limited'),
    ).toEqual([]);
    // The unreviewed bot's third and fourth are put off for their turns.
    await expect
      .poll(async () => (await Promise.all(sentU.map(record))).map((r) => r?.status), {
        timeout: 5_000,
        interval: 20,
      })
      .toEqual(['sent', 'sent', 'rate_limited', 'rate_limited']);
    // Put off for its turn: sent when its wait was due (timers may fire a millisecond early).
    const third = await settled(sentU[2] as string, 10_000);
    const waited = (await app.res.store.deliveries.detail(third.msg_id))?.history.find(
      (e) => e.status === 'rate_limited',
    );
    expect(waited).toBeDefined();
    expect(third.sent_at as number).toBeGreaterThanOrEqual((waited?.retry_at as number) - 50);
    expect((waited?.retry_at as number) - (waited?.at as number)).toBeGreaterThan(1_000);
  });

  it("fails a message whose type disagrees with its template's format (changed since it was accepted)", async () => {
    const id = await template(w, { content: 'plain text', msgtype: 1 });
    const pipe = await createPipe(app, w, { template_id: id });
    const msgId = await enqueueDirect(app, w, pipe.id, { template_id: id, type: 10, input: '{}' });
    const rec = await settled(msgId);
    expect(rec).toMatchObject({ status: 'failed', reason: 'TYPE_MISMATCH', code: 40023 });
    expect(rec.message).toContain(id);
  });
});
