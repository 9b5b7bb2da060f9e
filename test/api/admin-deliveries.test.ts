import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON } from '../../src/domain/deliveries/reasons.js';
import { markFailed, markRetrying } from '../../src/domain/deliveries/records.js';
import { HeraldError } from '../../src/errors/index.js';
import { PIPE_JOB_NAME } from '../../src/queue/pipe-messages.js';
import type { DeliveryChanges, DeliveryDetail, DeliveryRecord } from '../../src/store/index.js';
import { fail } from '../../src/workers/delivery/delivery-failure.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { directJobData, type World } from '../workers/helpers.js';

/*
 * The back office's delivery list and one message's page, over records written straight to the
 * store (each stage the lifecycle names, several bots and pipes, known creation times) and a
 * job that no worker takes (this file runs none).
 */
let app: TestApp;

type Seed = { id: string; bot: string; pipe: string; at: number; changes: DeliveryChanges };
/** Oldest first; created_at (and updated_at) = `at`. */
const SEEDS: Seed[] = [
  { id: 'a1', bot: 'A', pipe: 'A1', at: 1000, changes: { status: 'failed', reason: 'NO_SEND_PERMISSION' } },
  { id: 'a2', bot: 'A', pipe: 'A1', at: 2000, changes: { status: 'failed', reason: 'PIPE_DELETED' } },
  { id: 'a3', bot: 'A', pipe: 'A2', at: 3000, changes: { status: 'sent', sent_at: 3000 } },
  {
    id: 'a4',
    bot: 'A',
    pipe: 'A2',
    at: 4000,
    changes: { status: 'queued', reason: 'UPSTREAM_UNAVAILABLE', retry_at: 4500, attempts: 1 },
  },
  { id: 'a5', bot: 'A', pipe: 'A2', at: 5000, changes: { status: 'rate_limited', retry_at: 5500 } },
  { id: 'a6', bot: 'A', pipe: 'A1', at: 6000, changes: { status: 'queued' } },
  { id: 'b1', bot: 'B', pipe: 'B1', at: 7000, changes: { status: 'sent', replays: 1 } },
  { id: 'b2', bot: 'B', pipe: 'B1', at: 8000, changes: { status: 'failed', reason: 'NO_SEND_PERMISSION' } },
];

beforeAll(async () => {
  app = await startTestApp('admin_deliveries');
  for (const s of SEEDS) {
    await app.res.store.deliveries.save(
      s.id,
      { bot_id: s.bot, pipe_id: s.pipe, channel_id: 'c1' },
      s.changes,
      s.at,
    );
  }
});

afterAll(async () => {
  await app?.close();
});

const list = (query: string) =>
  app.request<{
    items: DeliveryRecord[];
    meta: { page: number; page_total: number; page_size: number; total: number; replayable?: number };
    sort: Record<string, number>;
  }>('GET', `/admin/api/delivery/list${query ? `?${query}` : ''}`, { admin: true });
const ids = async (query: string) => {
  const r = await list(query);
  expect(r.status, r.text).toBe(200);
  return r.body.data.items.map((d) => d.msg_id);
};
const view = (msgId: string) =>
  app.request<{ delivery: DeliveryDetail }>('GET', `/admin/api/delivery/view?msg_id=${msgId}`, {
    admin: true,
  });

describe('GET /admin/api/delivery/list', () => {
  it('lists the dead letters by default, latest first, as before', async () => {
    const r = await list('');
    expect(r.body.data.items.map((d) => d.msg_id)).toEqual(['b2', 'a2', 'a1']);
    expect(r.body.data.sort).toEqual({ updated_at: -1 });
    expect(r.body.data.items[0]).toMatchObject({
      status: 'failed',
      reason: 'NO_SEND_PERMISSION',
      bot_id: 'B',
    });
    expect(r.body.data.items[0]).not.toHaveProperty('history');
    expect(await ids('status=failed&bot_id=A')).toEqual(['a2', 'a1']);
    expect(await ids('reason=NO_SEND_PERMISSION')).toEqual(['b2', 'a1']);
  });

  it("filters by each of the lifecycle's stages, or any", async () => {
    expect(await ids('status=sent')).toEqual(['b1', 'a3']);
    expect(await ids('status=retrying')).toEqual(['a4']);
    expect(await ids('status=queued')).toEqual(['a6']);
    expect(await ids('status=rate_limited')).toEqual(['a5']);
    expect(await ids('status=replayed')).toEqual(['b1']);
    expect(await ids('status=any')).toEqual(['b2', 'b1', 'a6', 'a5', 'a4', 'a3', 'a2', 'a1']);
  });

  it('filters by bot, pipe, reason and time (created_at), and pages', async () => {
    expect(await ids('status=any&bot_id=B')).toEqual(['b2', 'b1']);
    expect(await ids('status=any&pipe_id=A2')).toEqual(['a5', 'a4', 'a3']);
    expect(await ids('status=any&bot_id=A&pipe_id=A1')).toEqual(['a6', 'a2', 'a1']);
    expect(await ids('status=any&reason=UPSTREAM_UNAVAILABLE')).toEqual(['a4']);
    expect(await ids('status=any&since=3000&until=6000')).toEqual(['a6', 'a5', 'a4', 'a3']);
    expect(await ids('status=any&since=7000')).toEqual(['b2', 'b1']);
    expect(await ids('status=any&until=1999')).toEqual(['a1']);
    expect(await ids('status=failed&since=1500')).toEqual(['b2', 'a2']);
    expect(await ids('status=any&since=9000')).toEqual([]);

    const paged = await list('status=any&page=2&page_size=3');
    expect(paged.body.data.items.map((d) => d.msg_id)).toEqual(['a5', 'a4', 'a3']);
    expect(paged.body.data.meta).toEqual({ page: 2, page_total: 3, page_size: 3, total: 8 });
    const last = await list('status=any&page=3&page_size=3');
    expect(last.body.data.items.map((d) => d.msg_id)).toEqual(['a2', 'a1']);
  });

  it('orders by created_at when asked, either way', async () => {
    // Touched later than created: a1 leads by updated_at, not by created_at.
    await app.res.store.deliveries.save('a1', { bot_id: 'A', pipe_id: 'A1', channel_id: 'c1' }, {}, 9000);
    expect(await ids('status=failed')).toEqual(['a1', 'b2', 'a2']);
    const r = await list('status=failed&sort=-created_at');
    expect(r.body.data.items.map((d) => d.msg_id)).toEqual(['b2', 'a2', 'a1']);
    expect(r.body.data.sort).toEqual({ created_at: -1 });
    expect(await ids('status=failed&sort=created_at')).toEqual(['a1', 'a2', 'b2']);
  });

  it('refuses what it does not know, in the envelope', async () => {
    for (const query of [
      'status=dead',
      'status=',
      'since=yesterday',
      'until=-5',
      'sort=status',
      'reason=lower',
    ]) {
      const bad = await list(query);
      expect(bad.status, query).toBe(400);
      expect(bad.body.code, query).toBe(40000);
    }
    const noAdmin = await app.request('GET', '/admin/api/delivery/list?status=any');
    expect(noAdmin.status).toBe(401);
  });

  it("says what a time must be in the reader's language", async () => {
    const bad = await list('since=yesterday');
    expect(bad.body.message).toBe('参数错误：since：格式不正确（毫秒时间戳）');
    const en = await app.request('GET', '/admin/api/delivery/list?since=yesterday', {
      admin: true,
      headers: { 'Accept-Language': 'en-US' },
    });
    expect(en.body.message).toBe('Invalid parameter: since: has an invalid format (ms since the epoch)');
  });

  it('says how many of the dead letters can still be replayed (replay input kept), for dead letters only', async () => {
    const save = (id: string, changes: DeliveryChanges) =>
      app.res.store.deliveries.save(id, { bot_id: 'R', pipe_id: 'R1', channel_id: 'c1' }, changes, 9000);
    await save('r1', { status: 'failed', reason: 'NO_SEND_PERMISSION', job: { msg_id: 'r1' } });
    await save('r2', { status: 'failed', reason: 'NO_SEND_PERMISSION', job: { msg_id: 'r2' } });
    // Its input dropped by the retention sweep: listed, not replayable.
    await save('r3', { status: 'failed', reason: 'NO_SEND_PERMISSION', job: null });
    await save('r4', { status: 'sent', job: null });
    const dead = await list('status=failed&bot_id=R');
    expect(dead.body.data.meta).toMatchObject({ total: 3, replayable: 2 });
    expect((await list('bot_id=R&reason=NO_SEND_PERMISSION')).body.data.meta).toMatchObject({
      total: 3,
      replayable: 2,
    });
    expect((await list('status=failed&bot_id=R&since=9500')).body.data.meta).toMatchObject({
      total: 0,
      replayable: 0,
    });
    expect((await list('status=any&bot_id=R')).body.data.meta).not.toHaveProperty('replayable');
  });
});

describe('GET /admin/api/delivery/view', () => {
  it('answers a record with its history and rendered message', async () => {
    const idsOf = { bot_id: 'A', pipe_id: 'A2', channel_id: 'c1' };
    await app.res.store.deliveries.save('v1', idsOf, { status: 'queued', retry_at: 50 }, 10, {
      status: 'retrying',
      at: 10,
      reason: 'UPSTREAM_TIMEOUT',
      code: 50001,
      retry_at: 50,
      attempt: 1,
    });
    await app.res.store.deliveries.save(
      'v1',
      idsOf,
      { status: 'sent', retry_at: null, attempts: 2, sent_at: 60, rendered: { type: 9, content: 'hi' } },
      60,
      { status: 'sent', at: 60, attempt: 2 },
    );
    const r = await view('v1');
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.delivery).toMatchObject({
      msg_id: 'v1',
      bot_id: 'A',
      pipe_id: 'A2',
      status: 'sent',
      attempts: 2,
      sent_at: 60,
      created_at: 10,
      history: [
        { status: 'retrying', at: 10, reason: 'UPSTREAM_TIMEOUT', code: 50001, retry_at: 50, attempt: 1 },
        { status: 'sent', at: 60, attempt: 2 },
      ],
      rendered: { type: 9, content: 'hi' },
    });
    expect(r.body.data.delivery).not.toHaveProperty('job');
  });

  it('answers a record from before history existed with an empty one', async () => {
    const r = await view('a2');
    expect(r.body.data.delivery).toMatchObject({
      msg_id: 'a2',
      status: 'failed',
      history: [],
      rendered: null,
    });
  });

  it('answers a message still in the queue from its job: queued, empty history', async () => {
    const world = { bot: { id: 'Q', token: '', bot: {} }, guildId: 'g1', channelId: 'c9' } as World;
    const job = directJobData(world, 'QP', { accepted_at: 12_345 });
    await app.res.pipeRuntime.queue.add(PIPE_JOB_NAME, job, { jobId: job.msg_id });
    const r = await view(job.msg_id);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.delivery).toMatchObject({
      msg_id: job.msg_id,
      bot_id: 'Q',
      pipe_id: 'QP',
      channel_id: 'c9',
      status: 'queued',
      attempts: 0,
      reason: null,
      sent_at: null,
      created_at: 12_345,
      history: [],
      rendered: null,
    });
  });

  it('answers 404 for an unknown message and 400 without a msg_id', async () => {
    const unknown = await app.request('GET', '/admin/api/delivery/view?msg_id=no-such-message', {
      admin: true,
      headers: { 'Accept-Language': 'en-US' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 40401, message: 'message not found' });
    const missing = await app.request('GET', '/admin/api/delivery/view', { admin: true });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe(40000);
    const noAdmin = await app.request('GET', '/admin/api/delivery/view?msg_id=v1');
    expect(noAdmin.status).toBe(401);
  });
});

describe("a delivery's error in the reader's language", () => {
  const ids = { bot_id: 'L', pipe_id: 'L1', channel_id: 'c1' };
  const zh = { 'Accept-Language': 'zh-CN' };
  const en = { 'Accept-Language': 'en-US' };
  const read = async (msgId: string, headers: Record<string, string>) => {
    const r = await app.request<{ delivery: DeliveryDetail }>(
      'GET',
      `/admin/api/delivery/view?msg_id=${msgId}`,
      {
        admin: true,
        headers,
      },
    );
    expect(r.status, r.text).toBe(200);
    return r.body.data.delivery.message;
  };
  const listed = async (msgId: string, headers: Record<string, string>) => {
    const r = await app.request<{ items: DeliveryRecord[] }>('GET', '/admin/api/delivery/list?bot_id=L', {
      admin: true,
      headers,
    });
    expect(r.status, r.text).toBe(200);
    return r.body.data.items.find((d) => d.msg_id === msgId)?.message;
  };

  it('words a failure from its catalogue entry at read time; a relay’s own text stays as it is', async () => {
    await markFailed(
      app.res,
      { msg_id: 'l1', ...ids },
      fail(REASON.UPSTREAM_REJECTED, { status: 400, upstream_code: 40000, detail: 'no such channel' }),
      1,
      null,
    );
    const zhText = '转发目标拒绝了消息（HTTP 400，错误码 40000）：no such channel';
    const enText = 'The relay target refused the message (HTTP 400, code 40000): no such channel';
    expect(await read('l1', zh)).toBe(zhText);
    expect(await read('l1', {})).toBe(zhText); // zh-CN is the platform's default
    expect(await read('l1', en)).toBe(enText);
    // the dead-letter list likewise
    expect(await listed('l1', zh)).toBe(zhText);
    expect(await listed('l1', en)).toBe(enText);
    expect((await view('l1')).body.data.delivery).not.toHaveProperty('params');
  });

  it("words a retry's reason too, and a render error's", async () => {
    await markRetrying(
      app.res,
      { msg_id: 'l2', ...ids },
      fail(REASON.TEMPLATE_DELETED, { id: 'T9' }),
      1,
      99_000,
    );
    expect(await read('l2', zh)).toBe('模板 T9 已被删除，不能再用于发送消息');
    expect(await read('l2', en)).toBe('Template T9 has been deleted; messages that use it cannot be sent');
    await markFailed(
      app.res,
      { msg_id: 'l3', ...ids },
      new HeraldError('TEMPLATE_RENDER', { line: 2, column: 5, detail: 'Unknown "foo" filter' }),
      1,
      null,
    );
    expect(await read('l3', zh)).toBe('模板渲染失败（第 2 行第 5 列）：Unknown "foo" filter');
    expect(await read('l3', en)).toBe('Template rendering failed (line 2, column 5): Unknown "foo" filter');
  });

  it('keeps a record from before the parameters were kept readable', async () => {
    const save = (id: string, changes: DeliveryChanges) =>
      app.res.store.deliveries.save(id, ids, { status: 'failed', ...changes }, 9000);
    // Its entry needs parameters the record does not have: its own (English) message.
    const old = 'The bot lacks the send messages permission in channel c1';
    await save('l4', { reason: 'NO_SEND_PERMISSION', code: 40323, message: old });
    expect(await read('l4', zh)).toBe(old);
    expect(await read('l4', en)).toBe(old);
    // One that needs none: worded in the reader's language.
    await save('l5', {
      reason: 'STALLED',
      code: 50002,
      message: 'The processes handling this message stopped too many times',
    });
    expect(await read('l5', zh)).toBe('处理该消息的进程多次中断');
    expect(await read('l5', en)).toBe('The processes handling this message stopped too many times');
  });
});
