import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireRendered } from '../../../src/domain/deliveries/records.js';
import type { DeliveryDetail, DeliveryEvent } from '../../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../../src/workers/index.js';
import { createTestChannel } from '../../helpers/directory.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  answer,
  createPipe,
  createRelayWorld,
  createTemplate,
  createWorld,
  enqueueDirect,
  ok,
  type RelayServer,
  sendPipe,
  startRelayServer,
  type World,
} from '../helpers.js';

/*
 * What the worker records for the back office's delivery page: each transition in the record's
 * history, and the message as sent, through the real pipeline (queue, worker, sent log, store).
 */
let app: TestApp;
let workers: RunningWorkers;
let relay: RelayServer;
let w: World;
let pipe: { id: string; token: string };

beforeAll(async () => {
  app = await startTestApp('delivery_history', {
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    WORKER_CONCURRENCY: '4',
    RETRY_BASE_MS: '50',
  });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
  relay = await startRelayServer();
  w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
  pipe = await createPipe(app, w);
});

afterAll(async () => {
  await workers?.close(2_000);
  await relay?.close();
  await app?.close();
});

/** The delivery page's answer for `msgId`, once its record says `status`. */
async function viewWhen(msgId: string, status: string): Promise<DeliveryDetail> {
  const read = async () =>
    (
      await app.request<{ delivery: DeliveryDetail }>('GET', `/admin/api/delivery/view?msg_id=${msgId}`, {
        admin: true,
      })
    ).body.data.delivery;
  await expect
    .poll(async () => (await app.res.store.deliveries.get(msgId))?.status, { timeout: 15_000 })
    .toBe(status);
  return read();
}
const stages = (d: DeliveryDetail) => d.history.map((e) => e.status);
/** The record as the database holds it. */
async function rawRecord(msgId: string): Promise<Record<string, unknown> | null> {
  const conn = await mongoose
    .createConnection(app.config.mongoUrl, {
      dbName: `herald_test_${app.config.redisPrefix.replace(/^herald-test-/, '')}`,
    })
    .asPromise();
  try {
    return await conn.collection('deliveries').findOne({ _id: msgId as never });
  } finally {
    await conn.close();
  }
}

describe('delivery history and the rendered message', () => {
  it('store sink: a sent message has one entry and keeps what was sent, KMarkdown or card', async () => {
    const msgId = await sendPipe(app, pipe.token, { content: 'hello **there**' });
    const d = await viewWhen(msgId, 'sent');
    expect(d.history).toEqual([{ status: 'sent', at: d.sent_at, attempt: 1 }]);
    expect(d.rendered).toEqual({ type: 9, content: 'hello **there**' });

    const card = JSON.stringify([
      { type: 'card', modules: [{ type: 'section', text: { type: 'kmarkdown', content: 'a card' } }] },
    ]);
    const cardId = await sendPipe(app, pipe.token, { content: card }, '&type=10');
    const c = await viewWhen(cardId, 'sent');
    expect(c.rendered?.type).toBe(10);
    // The card as it went out (converted and checked), which is what the timeline holds.
    expect(c.rendered?.content).toBe((await app.res.store.messages.get(cardId))?.content);
    expect(JSON.parse(c.rendered?.content ?? '[]')[0].modules[0].text.content).toBe('a card');
  });

  it('keeps a long message packed in the record: from a template (packed on the render thread) or plain', async () => {
    const long = `${'提交 "quoted" \\ 🚀 '.repeat(150)}end`;
    const tplPipe = await createPipe(app, w, {
      template_id: await createTemplate(app, w, '{{ data.text }}'),
    });
    const viaTemplate = await sendPipe(app, tplPipe.token, { text: long });
    const plain = await sendPipe(app, pipe.token, { content: long });
    for (const msgId of [viaTemplate, plain]) {
      const d = await viewWhen(msgId, 'sent');
      expect(d.rendered).toEqual({ type: 9, content: long });
      // At rest: packed, a fraction of the text.
      const raw = await rawRecord(msgId);
      expect(raw?.rendered).toEqual({ type: 9, packed: expect.any(String) });
      const packed = (raw?.rendered as { packed?: string } | undefined)?.packed ?? '';
      expect(packed.length).toBeLessThan(long.length / 4);
    }
  });

  it('relay sink: a retry, then sent; the history names the failure and the rendered message is kept', async () => {
    const r = await createRelayWorld(app, relay.url, { name: 'history relay', upstream_token: 'up-token' });
    const rPipe = await createPipe(app, r);
    let seen = 0;
    relay.handler = (body, res) => {
      seen++;
      if (seen === 1) answer(res, 503, { code: 503, message: 'busy' });
      else ok(res, `up-${String(body.nonce)}`);
    };
    const msgId = await sendPipe(app, rPipe.token, { content: 'through the relay' });
    const d = await viewWhen(msgId, 'sent');
    expect(stages(d)).toEqual(['retrying', 'sent']);
    const [retry, sent] = d.history as [DeliveryEvent, DeliveryEvent];
    expect(retry).toMatchObject({ reason: 'UPSTREAM_UNAVAILABLE', code: 50001, attempt: 1 });
    expect(retry.retry_at).toBeGreaterThanOrEqual(retry.at);
    expect(sent).toEqual({ status: 'sent', at: d.sent_at, attempt: 2 });
    expect(d).toMatchObject({ status: 'sent', attempts: 2, reason: null });
    expect(d.rendered).toEqual({ type: 9, content: 'through the relay' });
  });

  it('a bot over its budget: rate_limited, then sent', async () => {
    const slow = await createWorld(app, { name: 'slow bot', rate_capacity: 1, rate_per_second: 1 });
    const slowPipe = await createPipe(app, slow);
    // Two at once on a budget of one: one of them waits for its turn (about a second).
    const both = await Promise.all(
      ['first', 'second'].map((content) => sendPipe(app, slowPipe.token, { content })),
    );
    const views = await Promise.all(both.map((id) => viewWhen(id, 'sent')));
    expect(views.map(stages).sort()).toEqual([['rate_limited', 'sent'], ['sent']]);
    const d = views.find((v) => v.history.length === 2) as DeliveryDetail;
    expect(d.history[0]).toMatchObject({ attempt: 0 });
    expect(d.history[0]?.retry_at).toBeGreaterThan(d.history[0]?.at ?? 0);
    expect(d.history[1]).toEqual({ status: 'sent', at: d.sent_at, attempt: 1 });
    expect(d.rendered).toEqual({ type: 9, content: d.msg_id === both[0] ? 'first' : 'second' });
  });

  it('failed, then replayed after the fix and sent: three entries, and the rendered message at the end', async () => {
    const muted = await createTestChannel(app, w.guildId, {
      name: 'muted for history',
      permission_overwrites: [{ role_id: 0, allow: 0, deny: 4096 }],
    });
    const msgId = await sendPipe(app, pipe.token, { content: 'muted?' }, `&target_id=${muted.id}`);
    const dead = await viewWhen(msgId, 'failed');
    expect(dead.history).toEqual([
      { status: 'failed', at: dead.updated_at, reason: 'NO_SEND_PERMISSION', code: 40323, attempt: 1 },
    ]);
    expect(dead.rendered).toBeNull();

    await app.request('POST', '/admin/api/channel/update', {
      admin: true,
      json: { id: muted.id, permission_overwrites: [] },
    });
    const replay = await app.request('POST', '/admin/api/delivery/replay', {
      admin: true,
      json: { msg_id: msgId },
    });
    expect(replay.status).toBe(200);
    const d = await viewWhen(msgId, 'sent');
    expect(stages(d)).toEqual(['failed', 'replayed', 'sent']);
    expect(d.history[1]?.at).toBeGreaterThanOrEqual(dead.updated_at);
    expect(d.history[2]).toEqual({ status: 'sent', at: d.sent_at, attempt: 1 });
    expect(d).toMatchObject({ replays: 1, rendered: { type: 9, content: 'muted?' } });
  });

  it('created_at is when the message was accepted, however long it waited: sent or dead', async () => {
    // Accepted ten minutes ago and only now taken (a paused worker, a long rate wait).
    const acceptedAt = Date.now() - 10 * 60_000;
    const sent = await enqueueDirect(app, w, pipe.id, { accepted_at: acceptedAt, input: 'late' });
    const dead = await enqueueDirect(app, w, 'gone-pipe', { accepted_at: acceptedAt + 1, input: 'x' });
    expect(await viewWhen(sent, 'sent')).toMatchObject({ created_at: acceptedAt });
    expect(await viewWhen(dead, 'failed')).toMatchObject({ created_at: acceptedAt + 1 });
    const found = await app.request<{ items: DeliveryDetail[] }>(
      'GET',
      `/admin/api/delivery/list?status=any&since=${acceptedAt - 1_000}&until=${acceptedAt + 1_000}`,
      { admin: true },
    );
    expect(found.status, found.text).toBe(200);
    expect(found.body.data.items.map((d) => d.msg_id).sort()).toEqual([sent, dead].sort());
  });

  it('drops the message as sent RENDERED_RETENTION_DAYS after sending; the page says so', async () => {
    const msgId = await sendPipe(app, pipe.token, { content: 'short-lived' });
    expect((await viewWhen(msgId, 'sent')).rendered).toEqual({ type: 9, content: 'short-lived' });
    // A sweep today keeps it; one 7 days and a minute later drops it.
    expect(await expireRendered(app.res)).toBe(0);
    const later = Date.now() + 7 * 24 * 3_600_000 + 60_000;
    expect(await expireRendered({ ...app.res, now: () => later })).toBeGreaterThanOrEqual(1);
    expect(await viewWhen(msgId, 'sent')).toMatchObject({ rendered: null, rendered_dropped_at: later });
    expect(await rawRecord(msgId)).toMatchObject({ rendered: null });
  });
});
