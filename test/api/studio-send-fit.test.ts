import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { call, type SignedIn, signIn, useConsoleDir } from '../helpers/console.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createWorld, type World } from '../workers/helpers.js';

/**
 * The template studio's "send to test channel" splits a message over the platform's limits, as
 * a pipe does by default (docs/pipes.md, "Messages that always fit"); its render call still
 * reports the limit, so that the author sees it.
 */
const dir = useConsoleDir();
let app: TestApp;
let workers: RunningWorkers;
let w: World;
let session: SignedIn;

beforeAll(async () => {
  app = await startTestApp('studio_send_fit', { CONSOLE_DIR: dir, METRICS_PORT: '0', HOST: '127.0.0.1' });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
  w = await createWorld(app, { name: 'studio splitter', rate_capacity: 1000, rate_per_second: 1000 });
  session = await signIn(app, w.bot.token, 'bot');
});
afterAll(async () => {
  await workers?.close(2_000);
  await app?.close();
});

const post = (path: string, json: unknown) =>
  call(app, 'POST', path, { cookie: session.cookie, csrf: session.csrf, json }) as Promise<{
    status: number;
    body: { code: number; data: Record<string, unknown> };
  }>;

describe('send to test channel, over the limits', () => {
  it('splits a long KMarkdown message into messages in order; the render call reports the limit', async () => {
    const content = '{% for i in 1..3 %}{% for j in 1..700 %}word{{ i }} {% endfor %}\n\n{% endfor %}';
    const sent = await post('/admin/api/template/send-test', {
      bot_id: w.bot.id,
      content,
      msgtype: 1,
      channel_id: w.channelId,
    });
    expect(sent.status).toBe(200);
    const msgId = String(sent.body.data.msg_id);
    await expect
      .poll(async () => (await app.res.store.deliveries.get(msgId))?.status, {
        timeout: 15_000,
        interval: 50,
      })
      .toBe('sent');
    const record = (await app.res.store.deliveries.get(msgId)) as DeliveryRecord;
    // Three paragraphs of 4,200 characters: one a message.
    const ids = [msgId, `${msgId}.2`, `${msgId}.3`];
    expect(record.parts?.map((p) => p.msg_id)).toEqual(ids);
    const stored = new Map(
      (await app.res.store.messages.getMany(ids)).map((m) => [m.id, m.content] as const),
    );
    expect(ids.map((id) => stored.get(id)?.trim())).toEqual(
      [1, 2, 3].map((i) => `word${i} `.repeat(700).trim()),
    );
    const rendered = await post('/admin/api/template/render', {
      bot_id: w.bot.id,
      content,
      msgtype: 1,
      channel_id: w.channelId,
    });
    expect(rendered.status).toBe(400);
    expect(JSON.stringify(rendered.body)).toContain('8000');
  });
});
