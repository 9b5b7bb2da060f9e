import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { DELIVERY_HISTORY_MAX, type DeliveryEvent, openStore, type Store } from '../../src/store/index.js';
import { packText } from '../../src/text/packed-text.js';
import { uniqueName } from '../helpers/test-app.js';

/** The delivery store on the real database (FerretDB here): history, detail, filters, grouping. */
const dbName = `herald_test_${uniqueName('store_deliveries')}`;
const mongoUrl = loadConfig(process.env, { ADMIN_TOKEN: 'x'.repeat(32) }).mongoUrl;
let store: Store;
const ids = { bot_id: 'b1', pipe_id: 'p1', channel_id: 'c1' };
const page = { page: 1, pageSize: 50, sort: { field: 'updated_at', dir: -1 as const } };

beforeAll(async () => {
  store = await openStore(mongoUrl, { dbName, timeoutMs: 5_000 });
});

afterAll(async () => {
  await store?.dropDatabase().catch(() => {});
  await store?.close();
});

const event = (i: number): DeliveryEvent => ({ status: 'rate_limited', at: i, retry_at: i + 1, attempt: 0 });

describe('delivery store', () => {
  it('appends a transition to the history in the write that records it, keeping the newest 50', async () => {
    await store.deliveries.save('m-cap', ids, { status: 'rate_limited', retry_at: 1 }, 1000, event(0));
    expect(await store.deliveries.detail('m-cap')).toMatchObject({
      status: 'rate_limited',
      history: [event(0)],
      rendered: null,
      created_at: 1000,
    });
    for (let i = 1; i < DELIVERY_HISTORY_MAX + 5; i++) {
      await store.deliveries.save(
        'm-cap',
        ids,
        { status: 'rate_limited', retry_at: i + 1 },
        1000 + i,
        event(i),
      );
    }
    const detail = await store.deliveries.detail('m-cap');
    expect(detail?.history).toHaveLength(DELIVERY_HISTORY_MAX);
    // The newest, oldest first: 5 .. 54.
    expect(detail?.history[0]).toEqual(event(5));
    expect(detail?.history.at(-1)).toEqual(event(DELIVERY_HISTORY_MAX + 4));
    expect(detail).toMatchObject({ retry_at: DELIVERY_HISTORY_MAX + 5, created_at: 1000 });
    // A write without an event leaves the history as it is.
    await store.deliveries.save('m-cap', ids, { status: 'failed' }, 5000);
    expect((await store.deliveries.detail('m-cap'))?.history).toHaveLength(DELIVERY_HISTORY_MAX);
  });

  it('keeps history and the rendered message out of plain reads and lists', async () => {
    await store.deliveries.save(
      'm-sent',
      ids,
      { status: 'sent', rendered: { type: 9, content: '**hi**' } },
      2000,
      { status: 'sent', at: 2000, attempt: 1 },
    );
    expect(await store.deliveries.detail('m-sent')).toMatchObject({
      rendered: { type: 9, content: '**hi**' },
      history: [{ status: 'sent', at: 2000, attempt: 1 }],
    });
    const plain = await store.deliveries.get('m-sent');
    expect(plain).not.toHaveProperty('history');
    expect(plain).not.toHaveProperty('rendered');
    const listed = await store.deliveries.list({ status: 'sent' }, page);
    expect(listed.items.map((d) => d.msg_id)).toEqual(['m-sent']);
    expect(listed.items[0]).not.toHaveProperty('rendered');
  });

  it('keeps a long message packed and answers it unpacked; one it cannot unpack reads as null', async () => {
    const content = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ type: 'divider', n: i })));
    const packed = packText(content) as string;
    expect(packed.length).toBeLessThan(content.length);
    await store.deliveries.save('m-packed', ids, { status: 'sent', rendered: { type: 10, packed } }, 3000);
    expect((await store.deliveries.detail('m-packed'))?.rendered).toEqual({ type: 10, content });
    await store.deliveries.save(
      'm-bad',
      ids,
      { status: 'sent', rendered: { type: 10, packed: 'AAAA' } },
      3000,
    );
    expect((await store.deliveries.detail('m-bad'))?.rendered).toBeNull();
  });

  it('reads a record written before history and rendered existed as [] and null', async () => {
    const conn = await mongoose.createConnection(mongoUrl, { dbName }).asPromise();
    try {
      await conn.collection('deliveries').insertOne({
        _id: 'm-old' as never,
        ...ids,
        status: 'failed',
        reason: 'NO_SEND_PERMISSION',
        code: 40323,
        message: 'old',
        attempts: 1,
        replays: 0,
        created_at: 10,
        updated_at: 10,
      });
    } finally {
      await conn.close();
    }
    expect(await store.deliveries.detail('m-old')).toMatchObject({
      msg_id: 'm-old',
      status: 'failed',
      history: [],
      rendered: null,
    });
    // The first transition on such a record starts its history.
    await store.deliveries.save('m-old', ids, { status: 'queued', replays: 1 }, 20, {
      status: 'replayed',
      at: 20,
    });
    expect((await store.deliveries.detail('m-old'))?.history).toEqual([{ status: 'replayed', at: 20 }]);
  });

  it('filters on waiting, replayed and created_at, and sorts by either time', async () => {
    const other = { ...ids, bot_id: 'b2', pipe_id: 'p2' };
    await store.deliveries.save('f-wait', other, { status: 'queued', retry_at: 99 }, 100);
    await store.deliveries.save('f-new', other, { status: 'queued', retry_at: null }, 200);
    await store.deliveries.save('f-replay', other, { status: 'sent', replays: 2 }, 300);
    // Touched later than it was created: updated_at order differs from created_at order.
    await store.deliveries.save('f-wait', other, { status: 'queued', retry_at: 150 }, 400);
    const ids_ = async (f: Parameters<Store['deliveries']['list']>[0], field = 'updated_at') =>
      (await store.deliveries.list(f, { ...page, sort: { field, dir: -1 } })).items.map((d) => d.msg_id);
    expect(await ids_({ bot_id: 'b2' })).toEqual(['f-wait', 'f-replay', 'f-new']);
    expect(await ids_({ bot_id: 'b2' }, 'created_at')).toEqual(['f-replay', 'f-new', 'f-wait']);
    expect(await ids_({ bot_id: 'b2', status: 'queued', waiting: true })).toEqual(['f-wait']);
    expect(await ids_({ bot_id: 'b2', status: 'queued', waiting: false })).toEqual(['f-new']);
    expect(await ids_({ bot_id: 'b2', replayed: true })).toEqual(['f-replay']);
    expect(await ids_({ pipe_id: 'p2', since: 200 })).toEqual(['f-replay', 'f-new']);
    expect(await ids_({ pipe_id: 'p2', until: 200 })).toEqual(['f-wait', 'f-new']);
    expect(await ids_({ pipe_id: 'p2', since: 150, until: 250 })).toEqual(['f-new']);
    expect((await store.deliveries.list({ bot_id: 'b2' }, { ...page, pageSize: 2, page: 2 })).total).toBe(3);
  });

  it('counts dead messages by reason, most first', async () => {
    const dead = (id: string, reason: string | null) =>
      store.deliveries.save(id, { ...ids, bot_id: 'b3' }, { status: 'failed', reason }, 500);
    await dead('d1', 'NO_VIEW_PERMISSION');
    await dead('d2', 'PIPE_DELETED');
    await dead('d3', 'PIPE_DELETED');
    await store.deliveries.save('d4', ids, { status: 'queued', reason: 'PIPE_DELETED' }, 500);
    const byReason = await store.deliveries.failedByReason();
    // And m-cap (dead, no reason) from above; m-old was replayed, d4 is not dead.
    expect(byReason).toEqual([
      { reason: 'PIPE_DELETED', count: 2 },
      { reason: 'NO_VIEW_PERMISSION', count: 1 },
      { reason: null, count: 1 },
    ]);
  });

  it('drops the message as sent from records sent before the cutoff, noting when; the rest keep theirs', async () => {
    const r = { type: 9, content: 'kept' };
    const other = { ...ids, bot_id: 'b4' };
    await store.deliveries.save('r-old', other, { status: 'sent', sent_at: 1_000, rendered: r }, 1_000);
    await store.deliveries.save('r-new', other, { status: 'sent', sent_at: 5_000, rendered: r }, 5_000);
    await store.deliveries.save('r-dead', other, { status: 'failed', rendered: r }, 1_000);
    expect(await store.deliveries.dropRendered(2_000, 9_000)).toBe(1);
    expect(await store.deliveries.detail('r-old')).toMatchObject({
      rendered: null,
      rendered_dropped_at: 9_000,
    });
    expect(await store.deliveries.detail('r-new')).toMatchObject({ rendered: r, rendered_dropped_at: null });
    expect(await store.deliveries.detail('r-dead')).toMatchObject({ rendered: r, rendered_dropped_at: null });
    // Nothing left to drop: a second sweep writes nothing.
    expect(await store.deliveries.dropRendered(2_000, 9_500)).toBe(0);
    expect((await store.deliveries.detail('r-old'))?.rendered_dropped_at).toBe(9_000);
    expect(await store.deliveries.get('r-old')).not.toHaveProperty('rendered_dropped_at');
    // Sent again (a replay): kept anew, no longer marked dropped.
    await store.deliveries.save(
      'r-old',
      other,
      { status: 'sent', sent_at: 9_600, rendered: r, rendered_dropped_at: null },
      9_600,
    );
    expect(await store.deliveries.detail('r-old')).toMatchObject({ rendered: r, rendered_dropped_at: null });
  });
});
