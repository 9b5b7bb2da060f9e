import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testText } from '../../src/domain/pipes/send-test.js';
import { banTemplate } from '../../src/domain/templates/index.js';
import type { DeliveryRecord } from '../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, createTemplate, createWorld, sendPipe, type World } from '../workers/helpers.js';

/**
 * POST /admin/api/pipe/send-test: the pipe's test message through the door (budget, queue) and
 * the worker in this process, on the real Redis and store.
 */

let app: TestApp;
let workers: RunningWorkers;
let w: World;

const sendTest = (id: unknown, headers: Record<string, string> = {}) =>
  app.request<{ msg_id: string }>('POST', '/admin/api/pipe/send-test', {
    admin: true,
    json: { id },
    headers,
  });
const record = (msgId: string) => app.res.store.deliveries.get(msgId);
async function settled(msgId: string): Promise<DeliveryRecord> {
  await expect
    .poll(async () => (await record(msgId))?.status, { timeout: 15_000, interval: 50 })
    .toMatch(/^(sent|failed)$/);
  return (await record(msgId)) as DeliveryRecord;
}
const setPipe = (json: Record<string, unknown>) =>
  app.request('POST', '/admin/api/pipe/update', { admin: true, json }).then((r) => {
    if (r.status !== 200) throw new Error(r.text);
  });
const setBot = (json: Record<string, unknown>) =>
  app.request('POST', '/admin/api/bot/update', { admin: true, json }).then((r) => {
    if (r.status !== 200) throw new Error(r.text);
  });

beforeAll(async () => {
  app = await startTestApp('admin_pipe_send_test', { METRICS_PORT: '0', HOST: '127.0.0.1' });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
  w = await createWorld(app);
});
afterAll(async () => {
  await workers?.close(2_000);
  await app?.close();
});

describe('a pipe without template', () => {
  it("sends a short KMarkdown text naming the pipe, in the request's language, and it is delivered", async () => {
    const pipe = await createPipe(app, w, { title: 'CI *builds* [main]' });
    const zh = await sendTest(pipe.id);
    expect(zh.status).toBe(200);
    expect(zh.body.code).toBe(0);
    expect(Object.keys(zh.body.data)).toEqual(['msg_id']);
    expect(zh.body.data.msg_id).toMatch(/^[0-9a-f-]{36}$/);
    const en = await sendTest(pipe.id, { 'Accept-Language': 'en-US' });
    expect(en.body.message).toBe('Success');

    for (const [r, lang] of [
      [zh, 'zh-CN'],
      [en, 'en-US'],
    ] as const) {
      const rec = await settled(r.body.data.msg_id);
      expect(rec).toMatchObject({
        status: 'sent',
        pipe_id: pipe.id,
        bot_id: w.bot.id,
        channel_id: w.channelId,
      });
      const stored = await app.res.store.messages.get(r.body.data.msg_id);
      expect(stored).toMatchObject({
        type: 9,
        content: testText({ id: pipe.id, title: 'CI *builds* [main]' }, lang),
      });
    }
    expect(testText({ id: '7', title: 'CI *builds* [main]' }, 'en-US')).toBe(
      'This is a test message from pipe **CI \\*builds\\* \\[main\\]** (7), sent from the Herald console.',
    );
    expect(testText({ id: '7', title: 'x' }, 'zh-CN')).toBe(
      '这是一条测试消息，来自管道 **x**（7），由 Herald 控制台发送。',
    );
  });
});

describe('a pipe with a template', () => {
  it("renders the template's test_data, as a sender's body would be", async () => {
    const r = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
      bot: w.bot.token,
      json: {
        title: 't',
        content: '{{ data.who }} pushed {{ data.n }}',
        test_data: '{"who":"tester","n":3}',
      },
    });
    const pipe = await createPipe(app, w, { template_id: r.body.data.model.id });
    const sent = await sendTest(pipe.id);
    expect(sent.status).toBe(200);
    expect(await settled(sent.body.data.msg_id)).toMatchObject({ status: 'sent' });
    expect((await app.res.store.messages.get(sent.body.data.msg_id))?.content).toBe('tester pushed 3');
  });

  it('a template without test_data: 409 (40932) naming the template', async () => {
    const tpl = await createTemplate(app, w, 'no data {{ data.x }}');
    const pipe = await createPipe(app, w, { template_id: tpl });
    const r = await sendTest(pipe.id);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe(40932);
    expect(r.body.message).toContain(tpl);
    const en = await sendTest(pipe.id, { 'Accept-Language': 'en-US' });
    expect(en.body.message).toBe(
      `Template ${tpl} of pipe ${pipe.id} has no test_data; set the template's test_data first`,
    );
  });

  it('a deleted template: 400 (40020); a banned one: 400 (40021)', async () => {
    const create = (title: string) =>
      app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
        bot: w.bot.token,
        json: { title, content: 'x {{ data.a }}', test_data: '{"a":1}' },
      });
    const deleted = (await create('deleted')).body.data.model.id;
    const banned = (await create('banned')).body.data.model.id;
    const deletedPipe = await createPipe(app, w, { template_id: deleted });
    const bannedPipe = await createPipe(app, w, { template_id: banned });
    await app.request('POST', '/api/v3/template/delete', { bot: w.bot.token, json: { id: deleted } });
    const botRecord = await app.res.store.bots.get(w.bot.id);
    await banTemplate(app.res, botRecord!, banned);
    const d = await sendTest(deletedPipe.id);
    expect([d.status, d.body.code]).toEqual([400, 40020]);
    const b = await sendTest(bannedPipe.id);
    expect([b.status, b.body.code]).toEqual([400, 40021]);
  });
});

describe('refusals', () => {
  it('a disabled pipe: 409 (40930); enabled again, it sends', async () => {
    const pipe = await createPipe(app, w);
    await setPipe({ id: pipe.id, enabled: false });
    const r = await sendTest(pipe.id);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 40930, message: `管道 ${pipe.id} 已停用，启用后才能发送测试消息` });
    await setPipe({ id: pipe.id, enabled: true });
    expect((await sendTest(pipe.id)).status).toBe(200);
  });

  it('a disabled bot: 409 (40931) naming the bot', async () => {
    const other = await createWorld(app);
    const pipe = await createPipe(app, other);
    await setBot({ id: other.bot.id, enabled: false });
    const r = await sendTest(pipe.id, { 'Accept-Language': 'en-US' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      code: 40931,
      message: `The bot ${other.bot.id} of pipe ${pipe.id} is disabled; enable it to send a test message`,
    });
  });

  it('an unknown pipe: 404 (40401); no id or a bad one: 400 (40000)', async () => {
    const unknown = await sendTest('999999');
    expect([unknown.status, unknown.body.code]).toEqual([404, 40401]);
    for (const id of [undefined, 12, '']) {
      const r = await sendTest(id);
      expect([r.status, r.body.code]).toEqual([400, 40000]);
    }
  });

  it("takes from the pipe's budget, which send-pipemsg shares: 429 (42900) once it is spent", async () => {
    const pipe = await createPipe(app, w, { rate_limit: { capacity: 1, per_second: 0.01 } });
    const first = await sendTest(pipe.id);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-rate-limit-bucket')).toBe('message/send-pipemsg');
    expect(first.headers.get('x-rate-limit-remaining')).toBe('0');
    const second = await sendTest(pipe.id);
    expect(second.status).toBe(429);
    expect(second.body.code).toBe(42900);
    await expect(sendPipe(app, pipe.token, { content: 'over budget' })).rejects.toThrow(/42900/);
  });

  it('needs the admin token', async () => {
    const pipe = await createPipe(app, w);
    const none = await app.request('POST', '/admin/api/pipe/send-test', { json: { id: pipe.id } });
    expect([none.status, none.body.code]).toEqual([401, 40100]);
    const asBot = await app.request('POST', '/admin/api/pipe/send-test', {
      json: { id: pipe.id },
      bot: w.bot.token,
    });
    expect(asBot.status).toBe(401);
  });
});
