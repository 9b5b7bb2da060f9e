import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONTENT_LENGTH } from '../../src/domain/templates/index.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

interface Model {
  id: string;
  title: string;
  type: number;
  msgtype: number;
  status: number;
  test_data: string;
  test_channel: string;
  content: string;
  version: number;
  banned: boolean;
  consumption: number;
  created_at: number;
  updated_at: number;
}
interface Saved {
  model: Model;
  warnings: Array<Record<string, unknown>>;
}
interface ListData {
  items: Model[];
  meta: { page: number; page_total: number; page_size: number; total: number };
  sort: Record<string, number> | [];
}

let app: TestApp;
let token: string;

beforeAll(async () => {
  app = await startTestApp('templates');
  token = (await createTestBot(app)).token;
});
afterAll(() => app?.close());

const post = <T = Saved>(path: string, json: unknown, t = token, headers: Record<string, string> = {}) =>
  app.request<T>('POST', `/api/v3/template/${path}`, { bot: t, json, headers });
const create = (json: Record<string, unknown>, t = token) =>
  post('create', { title: 'T', content: 'hello {{ data.name }}', ...json }, t);
const update = (json: Record<string, unknown>, t = token) => post('update', json, t);
const list = (query = '', t = token) =>
  app.request<ListData>('GET', `/api/v3/template/list${query}`, { bot: t });

describe('POST /api/v3/template/create', () => {
  it('creates a template with every field of spec 2.2, status 0, version 1', async () => {
    const r = await create({
      title: 'Greeting',
      content: '**hi** {{ data.name }}',
      msgtype: 1,
      type: 0,
      test_channel: '1234',
    });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    const m = r.body.data.model;
    expect(m).toMatchObject({
      title: 'Greeting',
      type: 0,
      msgtype: 1,
      status: 0,
      test_data: '',
      test_channel: '1234',
      content: '**hi** {{ data.name }}',
      version: 1,
      banned: false,
      consumption: 1,
    });
    expect(m.id).toMatch(/^[0-9A-Za-z]{16}$/);
    expect(r.body.data.warnings).toEqual([]);
    expect(Object.keys(m)).not.toContain('bot_id');
    expect(Object.keys(m)).not.toContain('deleted_at');
  });

  it('defaults type to 0 and msgtype to 1, and assigns distinct ids', async () => {
    const a = (await create({})).body.data.model;
    const b = (await create({})).body.data.model;
    expect(a).toMatchObject({ type: 0, msgtype: 1 });
    expect(a.id).not.toBe(b.id);
  });

  it('accepts msgtype 2, 3 and 4 (card JSON, YAML, XML)', async () => {
    for (const msgtype of [2, 3, 4]) {
      const r = await create({ msgtype, content: '[]' });
      expect(r.status).toBe(200);
      expect(r.body.data.model.msgtype).toBe(msgtype);
    }
  });

  it('counts the title in characters: 64 CJK or emoji fit, 65 do not', async () => {
    expect((await create({ title: '模'.repeat(64) })).status).toBe(200);
    expect((await create({ title: '😀'.repeat(64) })).status).toBe(200);
    const r = await create({ title: '模'.repeat(65) });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('参数错误：title：最多 64 个字符');
  });

  it(`accepts content up to ${MAX_CONTENT_LENGTH} characters and refuses one more`, async () => {
    expect((await create({ content: 'x'.repeat(MAX_CONTENT_LENGTH) })).status).toBe(200);
    const r = await create({ content: 'x'.repeat(MAX_CONTENT_LENGTH + 1) });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ field: 'content' });
  });

  it('stores test_data given as JSON text', async () => {
    // A kmd template renders with any data, so no warning is expected either.
    const r = await create({ content: 'plain text', test_data: '{"name":"Ann"}' });
    expect(r.status).toBe(200);
    expect(r.body.data.model.test_data).toBe('{"name":"Ann"}');
  });

  it.each([
    [{ title: undefined }, 'title', '为必填项'],
    [{ content: undefined }, 'content', '为必填项'],
    [{ title: '' }, 'title', '不能为空'],
    [{ content: '' }, 'content', '不能为空'],
    [{ title: 5 }, 'title', '必须是字符串'],
    [{ content: ['x'] }, 'content', '必须是字符串'],
    [{ msgtype: 5 }, 'msgtype', '必须是以下值之一：1, 2, 3, 4'],
    [{ msgtype: 0 }, 'msgtype', '必须是以下值之一：1, 2, 3, 4'],
    [{ msgtype: '1' }, 'msgtype', '必须是整数'],
    [{ type: 1 }, 'type', '必须是以下值之一：0'],
    [{ type: 0.5 }, 'type', '必须是整数'],
    [{ test_data: 'not json' }, 'test_data', '必须是 JSON 文本'],
    [{ test_data: '{"a":' }, 'test_data', '必须是 JSON 文本'],
    [{ test_data: { a: 1 } }, 'test_data', '必须是字符串'],
    [{ test_channel: 'c'.repeat(65) }, 'test_channel', '最多 64 个字符'],
    [{ test_channel: 12 }, 'test_channel', '必须是字符串'],
  ])('rejects %j with 400 naming %s', async (fields, field, rule) => {
    const body: Record<string, unknown> = { title: 'T', content: 'c', ...fields };
    for (const [k, v] of Object.entries(fields)) if (v === undefined) delete body[k];
    const r = await post('create', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40000);
    expect(r.body.message).toBe(`参数错误：${field}：${rule}`);
    expect(r.body.data).toEqual({ field });
  });

  it('names the field in English too', async () => {
    const r = await post('create', { title: 'T', content: 'c', msgtype: 9 }, token, {
      'Accept-Language': 'en-US',
    });
    expect(r.body.message).toBe('Invalid parameter: msgtype: must be one of 1, 2, 3, 4');
  });

  it('ignores unknown fields (status, id, bot_id cannot be set)', async () => {
    const r = await create({ status: 2, id: 'mine', bot_id: 'other', version: 99, banned: true });
    expect(r.status).toBe(200);
    expect(r.body.data.model).toMatchObject({ status: 0, version: 1, banned: false });
    expect(r.body.data.model.id).not.toBe('mine');
  });

  it('refuses a template that does not compile, with line, column and excerpt', async () => {
    const r = await create({ content: 'line one\n{{ data.name }\nline three' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40010);
    expect(r.body.data).toMatchObject({ line: 2, column: expect.any(Number), excerpt: expect.any(String) });
    expect(r.body.message).toMatch(/^模板编译失败（第 2 行第 \d+ 列）/);
  });

  it('refuses an unclosed block with its position', async () => {
    const r = await create({ content: '{% for c in data.commits %}\n{{ c.id }}\n' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40010);
    expect(r.body.data).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
  });

  it('refuses a feature Herald does not offer (include) with its position', async () => {
    const r = await create({ content: 'a\n  {% include "x.twig" %}' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40016);
    expect(r.body.data).toMatchObject({ line: 2 });
  });
});

describe('POST /api/v3/template/update', () => {
  it('changes only the given fields, bumps the version and updated_at', async () => {
    const m = (await create({ title: 'Before', content: 'a', test_channel: 'ch' })).body.data.model;
    const r = await update({ id: m.id, title: 'After' });
    expect(r.status).toBe(200);
    expect(r.body.data.model).toMatchObject({
      id: m.id,
      title: 'After',
      content: 'a',
      test_channel: 'ch',
      version: 2,
    });
    expect(r.body.data.model.updated_at).toBeGreaterThanOrEqual(m.updated_at);
    const r2 = await update({ id: m.id, content: 'b', msgtype: 2 });
    expect(r2.body.data.model).toMatchObject({ title: 'After', content: 'b', msgtype: 2, version: 3 });
  });

  it('bumps the version once per change, also when changes race (no change lost)', async () => {
    const m = (await create({})).body.data.model;
    const results = await Promise.all([
      update({ id: m.id, title: 'race title' }),
      update({ id: m.id, test_channel: 'race channel' }),
      update({ id: m.id, content: 'race content' }),
      update({ id: m.id, test_data: '[1]' }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const after = (await allItems()).find((t) => t.id === m.id);
    expect(after).toMatchObject({
      title: 'race title',
      test_channel: 'race channel',
      content: 'race content',
      test_data: '[1]',
      version: 5,
    });
  });

  it('refuses a content that does not compile and keeps the old one', async () => {
    const m = (await create({ content: 'ok' })).body.data.model;
    const r = await update({ id: m.id, content: '{% if %}' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40010);
    expect(r.body.data).toMatchObject({ line: 1, column: expect.any(Number) });
    const after = await update({ id: m.id });
    expect(after.body.data.model.content).toBe('ok');
  });

  it.each([
    [{}, 'id', '为必填项'],
    [{ id: '' }, 'id', '不能为空'],
    [{ id: 'x'.repeat(17) }, 'id', '最多 16 个字符'],
    [{ id: 7 }, 'id', '必须是字符串'],
    [{ id: { $gt: '' } }, 'id', '必须是字符串'],
    [{ id: 'abc', title: '' }, 'title', '不能为空'],
    [{ id: 'abc', title: 't'.repeat(65) }, 'title', '最多 64 个字符'],
    [{ id: 'abc', msgtype: 7 }, 'msgtype', '必须是以下值之一：1, 2, 3, 4'],
    [{ id: 'abc', type: 2 }, 'type', '必须是以下值之一：0'],
    [{ id: 'abc', test_channel: 'x'.repeat(65) }, 'test_channel', '最多 64 个字符'],
  ])('rejects %j with 400 naming %s', async (body, field, rule) => {
    const r = await update(body);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`参数错误：${field}：${rule}`);
    expect(r.body.data).toEqual({ field });
  });

  it('rejects test_data that is not JSON, naming the field', async () => {
    const m = (await create({})).body.data.model;
    const r = await update({ id: m.id, test_data: "{'single': 'quotes'}" });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('参数错误：test_data：必须是 JSON 文本');
  });

  it('answers "not found" for an unknown id', async () => {
    const r = await update({ id: 'AAAAAAAAAAAAAAAA', title: 'x' });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 40401, message: '模板不存在', data: { field: 'id' } });
  });
});

describe('POST /api/v3/template/delete', () => {
  it('deletes: the template leaves the list and is "not found" for update and delete', async () => {
    const m = (await create({ title: 'to delete' })).body.data.model;
    const r = await post('delete', { id: m.id });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 0, message: '操作成功', data: {} });
    const ids = (await allItems()).map((t) => t.id);
    expect(ids).not.toContain(m.id);
    expect((await update({ id: m.id, title: 'x' })).status).toBe(404);
    expect((await post('delete', { id: m.id })).status).toBe(404);
  });

  it.each([
    [{}, 'id：为必填项'],
    [{ id: 'x'.repeat(17) }, 'id：最多 16 个字符'],
    [{ id: 1 }, 'id：必须是字符串'],
  ])('rejects %j', async (body, detail) => {
    const r = await post('delete', body);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`参数错误：${detail}`);
  });
});

describe('isolation between bots', () => {
  it("never lists, updates, deletes or renders another bot's template (not found, never forbidden)", async () => {
    const other = await createTestBot(app);
    const mine = (await create({ title: 'mine only' })).body.data.model;
    const theirs = (await create({ title: 'theirs' }, other.token)).body.data.model;
    const theirList = (await list('', other.token)).body.data;
    expect(theirList.items.map((t) => t.id)).toEqual([theirs.id]);
    expect(theirList.meta.total).toBe(1);
    for (const [path, body] of [
      ['update', { id: mine.id, title: 'hijack' }],
      ['delete', { id: mine.id }],
    ] as const) {
      const r = await post(path, body, other.token);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe(40401);
    }
    const after = (await allItems()).find((t) => t.id === mine.id);
    expect(after?.title).toBe('mine only');
  });

  it('answers 401 without a bot token', async () => {
    const r = await app.request('GET', '/api/v3/template/list');
    expect(r.status).toBe(401);
    const c = await app.request('POST', '/api/v3/template/create', { json: { title: 't', content: 'c' } });
    expect(c.status).toBe(401);
  });

  it('carries the rate-limit headers, per route', async () => {
    const r = await list();
    expect(r.headers.get('X-Rate-Limit-Bucket')).toBe('template/list');
    expect(r.headers.get('X-Rate-Limit-Limit')).toBeTruthy();
  });
});

describe('GET /api/v3/template/list', () => {
  let bot: { token: string };
  const titles = ['delta', 'alpha', 'echo', 'charlie', 'bravo', 'foxtrot', 'golf'];
  const created: Model[] = [];

  beforeAll(async () => {
    bot = await createTestBot(app);
    for (const title of titles) created.push((await create({ title }, bot.token)).body.data.model);
  });

  it('pages with correct meta, default page_size 50 and sort []', async () => {
    const r = await list('', bot.token);
    expect(r.status).toBe(200);
    expect(r.body.data.meta).toEqual({ page: 1, page_total: 1, page_size: 50, total: 7 });
    expect(r.body.data.sort).toEqual([]);
    // Default order: creation order.
    expect(r.body.data.items.map((t) => t.title)).toEqual(titles);
  });

  it('splits 7 into pages of 3: 3, 3, 1, then empty past the end', async () => {
    const pages = [];
    for (const page of [1, 2, 3, 4, 99])
      pages.push((await list(`?page=${page}&page_size=3`, bot.token)).body.data);
    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1, 0, 0]);
    for (const [i, p] of pages.entries()) {
      expect(p.meta).toEqual({ page: [1, 2, 3, 4, 99][i], page_total: 3, page_size: 3, total: 7 });
    }
    expect(pages.flatMap((p) => p.items.map((t) => t.title))).toEqual(titles);
  });

  it('sorts by title, -title, id, -id, created_at, -updated_at and echoes the sort', async () => {
    const byTitle = (await list('?sort=title', bot.token)).body.data;
    expect(byTitle.items.map((t) => t.title)).toEqual([...titles].sort());
    expect(byTitle.sort).toEqual({ title: 1 });
    const desc = (await list('?sort=-title', bot.token)).body.data;
    expect(desc.items.map((t) => t.title)).toEqual([...titles].sort().reverse());
    expect(desc.sort).toEqual({ title: -1 });
    const ids = created.map((t) => t.id).sort();
    expect((await list('?sort=id', bot.token)).body.data.items.map((t) => t.id)).toEqual(ids);
    expect((await list('?sort=-id', bot.token)).body.data.items.map((t) => t.id)).toEqual([...ids].reverse());
    expect((await list('?sort=created_at', bot.token)).body.data.items.map((t) => t.title)).toEqual(titles);
  });

  it('sorts by updated_at after an update', async () => {
    await update({ id: created[1]!.id, title: 'alpha2' }, bot.token);
    const items = (await list('?sort=-updated_at', bot.token)).body.data.items;
    expect(items[0]!.title).toBe('alpha2');
    await update({ id: created[1]!.id, title: 'alpha' }, bot.token);
  });

  it.each([
    ['?page=0', 'page', '必须是 1 到 100000 之间的整数'],
    ['?page=-1', 'page', '必须是 1 到 100000 之间的整数'],
    ['?page=1.5', 'page', '必须是 1 到 100000 之间的整数'],
    ['?page=abc', 'page', '必须是 1 到 100000 之间的整数'],
    ['?page_size=0', 'page_size', '必须是 1 到 50 之间的整数'],
    ['?page_size=51', 'page_size', '必须是 1 到 50 之间的整数'],
    ['?page_size=x', 'page_size', '必须是 1 到 50 之间的整数'],
  ])('rejects %s naming %s', async (query, field, rule) => {
    const r = await list(query, bot.token);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`参数错误：${field}：${rule}`);
    expect(r.body.data).toEqual({ field });
  });

  it('rejects an unknown sort field, listing the allowed ones', async () => {
    const r = await list('?sort=content', bot.token);
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ field: 'sort' });
    expect(r.body.message).toContain('-updated_at');
  });
});

async function allItems(t = token): Promise<Model[]> {
  const out: Model[] = [];
  for (let page = 1; ; page++) {
    const d = (await list(`?page=${page}&page_size=50`, t)).body.data;
    out.push(...d.items);
    if (page >= d.meta.page_total) return out;
  }
}
