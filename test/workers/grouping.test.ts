import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryDetail, DeliveryRecord } from '../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
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
} from './helpers.js';

/**
 * Grouped pipes (docs/pipes.md, "Grouping") through the worker in this process, on the real
 * Redis (BullMQ) and store: digests, throttles, and updates in place on both sinks.
 */
let app: TestApp;
let workers: RunningWorkers;
let relay: RelayServer;
let w: World;

const ALERT = '{{ data.alert }} {{ data.state }}';
const DIGEST =
  '{{ _group.count }} in {{ _group.key }} (held {{ _group.held_back }}):{% for i in _group.items %} {{ i.alert }}{% endfor %}; newest {{ data.alert }}';

async function settled(msgId: string): Promise<DeliveryRecord> {
  return (await allSettled([msgId]))[0]!;
}

/**
 * The records of these messages once each is sent, folded or failed: polled in one query for all
 * (a poll per message, 100 at once, missed DB_TIMEOUT_MS on a loaded machine), then read one by
 * one, each read asked again should the store miss its timeout.
 */
async function allSettled(ids: readonly string[]): Promise<DeliveryRecord[]> {
  await expect
    .poll(
      async () => {
        const found = await app.res.store.deliveries.statusesOf(ids);
        return ids.filter((id) => !/^(sent|folded|failed)$/.test(found.get(id) ?? '')).length;
      },
      { timeout: 30_000, interval: 50 },
    )
    .toBe(0);
  const records: DeliveryRecord[] = [];
  for (const id of ids) {
    let record: DeliveryRecord | null = null;
    await expect
      .poll(
        async () => {
          record = await app.res.store.deliveries.get(id);
          return record !== null;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(true);
    records.push(record as unknown as DeliveryRecord);
  }
  return records;
}

async function status(msgId: string, token: string): Promise<Record<string, unknown>> {
  const r = await app.request<Record<string, unknown>>(
    'GET',
    `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
    {
      bot: token,
    },
  );
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

async function timeline(world: World): Promise<Array<{ id: string; content: string; updated_at?: number }>> {
  const r = await app.request<{ items: Array<{ id: string; content: string; updated_at?: number }> }>(
    'GET',
    `/api/v3/message/list?target_id=${world.channelId}&page_size=50`,
    { bot: world.bot.token },
  );
  expect(r.status, r.text).toBe(200);
  return r.body.data.items;
}

beforeAll(async () => {
  app = await startTestApp('worker_grouping', {
    METRICS_PORT: '0',
    WORKER_CONCURRENCY: '8',
    HOST: '127.0.0.1',
  });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
  relay = await startRelayServer();
  w = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
});
afterAll(async () => {
  await workers?.close(2_000);
  await relay?.close();
  await app?.close();
});

describe('pipe grouping settings', () => {
  it('are checked (400 naming grouping), shown by view, and cleared with null', async () => {
    const bad = [
      { key: '{{ data.k }}', mode: 'throttle', window_s: 60 },
      { key: '{{ data.k }}', mode: 'digest', window_s: 60, limit: 3 },
      { key: '{{ data.k', mode: 'digest', window_s: 60 },
      { key: '{{ data.k }}', mode: 'batch', window_s: 60 },
      { key: '{{ data.k }}', mode: 'digest', window_s: 0 },
      { key: '', mode: 'digest', window_s: 60 },
      { key: '{{ data.k }}', mode: 'digest', window_s: 60, extra: 1 },
    ];
    for (const grouping of bad) {
      const r = await app.request('POST', '/admin/api/pipe/create', {
        admin: true,
        json: { bot_id: w.bot.id, title: 'bad', channel_id: w.channelId, grouping },
      });
      expect(r.status, JSON.stringify(grouping)).toBe(400);
      expect(r.text).toContain('grouping');
    }
    const grouping = { key: '{{ data.k }}', mode: 'throttle', window_s: 30, limit: 5 };
    const pipe = await createPipe(app, w, { grouping });
    const view = await app.request<{ pipe: { grouping: unknown } }>(
      'GET',
      `/admin/api/pipe/view?id=${pipe.id}`,
      {
        admin: true,
      },
    );
    expect(view.body.data.pipe.grouping).toEqual(grouping);
    const cleared = await app.request<{ pipe: { grouping: unknown } }>('POST', '/admin/api/pipe/update', {
      admin: true,
      json: { id: pipe.id, grouping: null },
    });
    expect(cleared.body.data.pipe.grouping).toBeNull();
  });

  it('the alertmanager and grafana presets edit in place by groupKey, unless the call says otherwise', async () => {
    const preset = async (body: Record<string, unknown>) => {
      const r = await app.request<{ pipe: { grouping: unknown } }>('POST', '/admin/api/pipe/create', {
        admin: true,
        json: { bot_id: w.bot.id, title: 'preset', channel_id: w.channelId, ...body },
      });
      expect(r.status, r.text).toBe(200);
      return r.body.data.pipe.grouping;
    };
    const byGroupKey = { key: '{{ data.groupKey }}', mode: 'update', window_s: 86_400, limit: null };
    expect(await preset({ preset: 'alertmanager' })).toEqual(byGroupKey);
    expect(await preset({ preset: 'grafana' })).toEqual(byGroupKey);
    expect(await preset({ preset: 'alertmanager', grouping: null })).toBeNull();
    expect(await preset({ preset: 'sentry' })).toBeNull();
  });
});

describe('digest', () => {
  it('sends one message per group and window, rendered from the collected inputs; the rest are folded into it', async () => {
    const template = await createTemplate(app, w, DIGEST);
    const pipe = await createPipe(app, w, {
      template_id: template,
      grouping: { key: '{{ data.group }}', mode: 'digest', window_s: 2 },
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await sendPipe(app, pipe.token, { group: 'db', alert: `d${i}` }));
    ids.push(await sendPipe(app, pipe.token, { group: 'web', alert: 'w0' }));
    // An empty key: not grouped, sent on its own.
    const alone = await sendPipe(app, pipe.token, { group: '', alert: 'solo' });
    const records = await allSettled(ids);
    expect(records.map((r) => r.status)).toEqual(['folded', 'folded', 'folded', 'folded', 'folded']);
    const dbDigest = records[0]?.folded_into as string;
    expect(records.slice(0, 4).every((r) => r.folded_into === dbDigest)).toBe(true);
    expect(records[4]?.folded_into).not.toBe(dbDigest);
    expect((await settled(alone)).status).toBe('sent');
    // pipemsg-status says so, with the carrier's id.
    expect(await status(ids[1] as string, w.bot.token)).toMatchObject({
      status: 'folded',
      folded_into: dbDigest,
    });
    expect((await settled(dbDigest)).status).toBe('sent');
    expect((await settled(records[4]?.folded_into as string)).status).toBe('sent');
    const items = await timeline(w);
    const dbMessage = items.find((m) => m.id === dbDigest);
    expect(dbMessage?.content).toBe('4 in db (held 0): d0 d1 d2 d3; newest d3');
    const webMessage = items.find((m) => m.id === records[4]?.folded_into);
    expect(webMessage?.content).toBe('1 in web (held 0): w0; newest w0');
    expect((await app.res.store.deliveries.detail(dbDigest))?.rendered?.content).toBe(dbMessage?.content);
  });
});

describe('throttle', () => {
  it('lets `limit` out per window and folds the rest into a closing digest that says how many were held back', async () => {
    const world = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
    const template = await createTemplate(app, world, DIGEST);
    const pipe = await createPipe(app, world, {
      template_id: template,
      grouping: { key: '{{ data.group }}', mode: 'throttle', window_s: 2, limit: 2 },
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await sendPipe(app, pipe.token, { group: 'cpu', alert: `t${i}` }));
    const records = await allSettled(ids);
    expect(records.map((r) => r.status)).toEqual(['sent', 'sent', 'folded', 'folded', 'folded']);
    const closing = records[2]?.folded_into as string;
    expect(await settled(closing)).toMatchObject({ status: 'sent' });
    const contents = (await timeline(world)).map((m) => m.content).sort();
    expect(contents).toEqual([
      '1 in cpu (held 0): t0; newest t0',
      '1 in cpu (held 0): t1; newest t1',
      '3 in cpu (held 3): t2 t3 t4; newest t4',
    ]);
    // The next window's first message says how many the last one held back.
    const next = await sendPipe(app, pipe.token, { group: 'cpu', alert: 'n0' });
    expect((await settled(next)).status).toBe('sent');
    expect((await timeline(world)).map((m) => m.content)).toContain('1 in cpu (held 3): n0; newest n0');
  });
});

describe('update in place', () => {
  it('relay: posts the first, edits it for later ones, folds a late one, and posts anew once the original is gone', async () => {
    const world = await createRelayWorld(app, relay.url, { name: 'relay', upstream_token: 'tok-group' });
    const template = await createTemplate(app, world, ALERT);
    const pipe = await createPipe(app, world, {
      template_id: template,
      grouping: { key: '{{ data.group }}', mode: 'update', window_s: 3600 },
    });
    let gone = false;
    relay.requests.length = 0;
    relay.handler = (body, res) => {
      if (body.nonce === undefined) {
        // message/update
        if (gone) answer(res, 200, { code: 40000, message: '消息不存在', data: {} });
        else answer(res, 200, { code: 0, message: 'ok', data: [] });
        return;
      }
      ok(res, `up-${String(body.nonce)}`);
    };
    const first = await sendPipe(app, pipe.token, { group: 'g1', alert: 'disk', state: 'firing' });
    expect((await settled(first)).status).toBe('sent');
    const second = await sendPipe(app, pipe.token, { group: 'g1', alert: 'disk', state: 'still firing' });
    const edited = await settled(second);
    expect(edited).toMatchObject({ status: 'folded', folded_into: first, upstream_msg_id: `up-${first}` });
    expect(await status(second, world.bot.token)).toMatchObject({ status: 'folded', folded_into: first });
    // Accepted before the second (a late delivery): folded, never overwriting newer content.
    const late = await enqueueDirect(app, world, pipe.id, {
      template_id: template,
      input: Buffer.from(JSON.stringify({ group: 'g1', alert: 'disk', state: 'old' })).toString('base64'),
      input_encoding: 'base64',
      accepted_at: Date.now() - 60_000,
    });
    expect(await settled(late)).toMatchObject({ status: 'folded', folded_into: first });
    const resolved = await sendPipe(app, pipe.token, { group: 'g1', alert: 'disk', state: 'resolved' });
    expect((await settled(resolved)).status).toBe('folded');
    expect(relay.requests.map((r) => r.body)).toEqual([
      { type: 9, target_id: world.channelId, content: 'disk firing', nonce: first },
      { msg_id: `up-${first}`, content: 'disk still firing' },
      { msg_id: `up-${first}`, content: 'disk resolved' },
    ]);
    expect(relay.requests[1]?.headers.authorization).toBe('Bot tok-group');
    // The original was deleted upstream: the next one is posted anew and becomes the carrier.
    gone = true;
    const again = await sendPipe(app, pipe.token, { group: 'g1', alert: 'disk', state: 'firing again' });
    expect(await settled(again)).toMatchObject({ status: 'sent', upstream_msg_id: `up-${again}` });
    gone = false;
    const after = await sendPipe(app, pipe.token, { group: 'g1', alert: 'disk', state: 'resolved again' });
    expect(await settled(after)).toMatchObject({ status: 'folded', folded_into: again });
    expect(relay.requests.at(-1)?.body).toEqual({ msg_id: `up-${again}`, content: 'disk resolved again' });
  });

  it('store: edits the timeline entry (same id, new content, an updated time), or posts anew when it is gone', async () => {
    const world = await createWorld(app, { rate_capacity: 1000, rate_per_second: 1000 });
    const template = await createTemplate(app, world, ALERT);
    const pipe = await createPipe(app, world, {
      template_id: template,
      grouping: { key: '{{ data.group }}', mode: 'update', window_s: 3600 },
    });
    const first = await sendPipe(app, pipe.token, { group: 'x', alert: 'api', state: 'firing' });
    expect((await settled(first)).status).toBe('sent');
    const [posted] = await timeline(world);
    expect(posted).toMatchObject({ id: first, content: 'api firing' });
    expect(posted?.updated_at).toBeUndefined();
    const second = await sendPipe(app, pipe.token, { group: 'x', alert: 'api', state: 'resolved' });
    expect(await settled(second)).toMatchObject({ status: 'folded', folded_into: first });
    const items = await timeline(world);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ id: first, content: 'api resolved' });
    expect(items[0]?.updated_at).toBeGreaterThanOrEqual(
      (posted as unknown as { create_at: number }).create_at,
    );
    const detail = (await app.res.store.deliveries.detail(second)) as DeliveryDetail;
    expect(detail.rendered?.content).toBe('api resolved');
    expect(detail.history.map((h) => h.status)).toEqual(['folded']);
    // The entry deleted from the timeline: the next one is stored anew and becomes the carrier.
    const mongo = new URL(app.config.mongoUrl);
    mongo.pathname = `/herald_test_${app.config.redisPrefix.replace(/^herald-test-/, '')}`;
    const conn = await mongoose.createConnection(mongo.toString()).asPromise();
    try {
      expect((await conn.collection('messages').deleteOne({ _id: first as never })).deletedCount).toBe(1);
    } finally {
      await conn.close();
    }
    const third = await sendPipe(app, pipe.token, { group: 'x', alert: 'api', state: 'firing again' });
    expect((await settled(third)).status).toBe('sent');
    const fourth = await sendPipe(app, pipe.token, { group: 'x', alert: 'api', state: 'ok' });
    expect(await settled(fourth)).toMatchObject({ status: 'folded', folded_into: third });
    expect((await timeline(world)).map((m) => [m.id, m.content])).toEqual([[third, 'api ok']]);
  });

  it('a storm of concurrent alerts: one message per group, showing each group newest alert, the rest folded into it', async () => {
    const world = await createRelayWorld(app, relay.url, {
      name: 'storm relay',
      upstream_token: 'tok-storm',
    });
    const template = await createTemplate(app, world, ALERT);
    const pipe = await createPipe(app, world, {
      template_id: template,
      grouping: { key: '{{ data.group }}', mode: 'update', window_s: 3600 },
    });
    relay.requests.length = 0;
    relay.handler = (body, res) => {
      if (body.nonce === undefined) answer(res, 200, { code: 0, message: 'ok', data: [] });
      else ok(res, `up-${String(body.nonce)}`);
    };
    const ids = await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        sendPipe(app, pipe.token, { group: `g${n % 5}`, alert: `a${n}`, state: 's' }),
      ),
    );
    const records = await allSettled(ids);
    const carriers = records.filter((r) => r.status === 'sent');
    expect(carriers).toHaveLength(5);
    expect(records.filter((r) => r.status === 'folded')).toHaveLength(95);
    const creates = relay.requests.filter((r) => r.body.nonce !== undefined);
    expect(creates.map((r) => r.body.nonce).sort()).toEqual(carriers.map((r) => r.msg_id).sort());
    // Each group's message ends showing its newest alert (by acceptance, then msg_id).
    const jobs = await Promise.all(ids.map((id) => app.res.pipeRuntime.queue.getJob(id)));
    for (let g = 0; g < 5; g++) {
      const inGroup = ids
        .map((id, n) => ({ id, n, at: jobs[n]?.data.accepted_at ?? 0 }))
        .filter((x) => x.n % 5 === g)
        .sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : 1));
      const newest = inGroup.at(-1) as { n: number };
      const carrier = records.find(
        (r) => r.status === 'sent' && inGroup.some((x) => x.id === r.msg_id),
      ) as DeliveryRecord;
      expect(
        records
          .filter((r) => inGroup.some((x) => x.id === r.msg_id) && r.status === 'folded')
          .every((r) => r.folded_into === carrier.msg_id),
      ).toBe(true);
      const shown = relay.requests
        .filter((r) => r.body.nonce === carrier.msg_id || r.body.msg_id === `up-${carrier.msg_id}`)
        .at(-1);
      expect(shown?.body.content).toBe(`a${newest.n} s`);
    }
  });
});
