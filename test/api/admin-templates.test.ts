import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBot, startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/test-app.js';

/** GET /admin/api/template/list and /view: operators read every bot's templates (read-only). */

interface Tpl {
  id: string;
  bot_id: string;
  title: string;
  test_data: string;
  test_channel: string;
  content: string;
  [k: string]: unknown;
}
interface ListData {
  items: Tpl[];
  meta: { page: number; page_total: number; page_size: number; total: number };
  sort: unknown;
}

let app: TestApp;
let botA: { id: string; token: string };
let botB: { id: string; token: string };
const ids: Record<string, string> = {};

async function createTemplate(token: string, json: Record<string, unknown>): Promise<string> {
  const r = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
    bot: token,
    json,
  });
  if (r.status !== 200) throw new Error(`template create failed: ${r.text}`);
  return r.body.data.model.id;
}
const get = <T>(path: string, admin: boolean | string = true) => app.request<T>('GET', path, { admin });

beforeAll(async () => {
  app = await startTestApp('admin_templates');
  botA = await createTestBot(app, { name: 'bot a' });
  botB = await createTestBot(app, { name: 'bot b' });
  ids.alpha = await createTemplate(botA.token, {
    title: 'alpha',
    content: 'Hello {{ data.who }}',
    test_data: '{"who":"tester"}',
    test_channel: '1234',
  });
  ids.beta = await createTemplate(botA.token, { title: 'beta', content: 'plain' });
  ids.gamma = await createTemplate(botB.token, { title: 'gamma', content: 'B says {{ data.x }}' });
  ids.gone = await createTemplate(botB.token, { title: 'gone', content: 'bye' });
  const del = await app.request('POST', '/api/v3/template/delete', {
    bot: botB.token,
    json: { id: ids.gone },
  });
  expect(del.status).toBe(200);
});
afterAll(() => app?.close());

describe('GET /admin/api/template/list', () => {
  it("lists every bot's live templates, with bot_id, test_data and test_channel", async () => {
    const r = await get<ListData>('/admin/api/template/list');
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    expect(r.body.data.meta).toEqual({ page: 1, page_total: 1, page_size: 50, total: 3 });
    expect(r.body.data.sort).toEqual([]);
    // The deleted template is not listed. (Default order: created_at, which may tie here.)
    expect(r.body.data.items.map((t) => t.title).sort()).toEqual(['alpha', 'beta', 'gamma']);
    expect(r.body.data.items.find((t) => t.title === 'alpha')).toMatchObject({
      id: ids.alpha,
      bot_id: botA.id,
      test_data: '{"who":"tester"}',
      test_channel: '1234',
      content: 'Hello {{ data.who }}',
    });
  });

  it('filters by bot_id; an unknown bot has none', async () => {
    const a = await get<ListData>(`/admin/api/template/list?bot_id=${botA.id}&sort=title`);
    expect(a.body.data.items.map((t) => t.id)).toEqual([ids.alpha, ids.beta]);
    expect(a.body.data.items.every((t) => t.bot_id === botA.id)).toBe(true);
    const b = await get<ListData>(`/admin/api/template/list?bot_id=${botB.id}`);
    expect(b.body.data.items.map((t) => t.id)).toEqual([ids.gamma]);
    const none = await get<ListData>('/admin/api/template/list?bot_id=999999');
    expect(none.status).toBe(200);
    expect(none.body.data).toMatchObject({ items: [], meta: { total: 0 } });
  });

  it('pages and sorts like the other admin lists', async () => {
    const r = await get<ListData>('/admin/api/template/list?page=2&page_size=1&sort=-title');
    expect(r.body.data.meta).toEqual({ page: 2, page_total: 3, page_size: 1, total: 3 });
    expect(r.body.data.sort).toEqual({ title: -1 });
    expect(r.body.data.items.map((t) => t.title)).toEqual(['beta']);
  });

  it.each([
    ['page_size=51', 'page_size'],
    ['page=0', 'page'],
    ['sort=content', 'sort'],
    ['bot_id=a&bot_id=b', 'bot_id'],
  ])('refuses %s with 40000 naming %s', async (query, field) => {
    const r = await get(`/admin/api/template/list?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40000);
    expect(r.body.message).toContain(field);
  });
});

describe('GET /admin/api/template/view', () => {
  it('answers the template with everything a bot sees, and its bot', async () => {
    const r = await get<{ template: Tpl }>(`/admin/api/template/view?id=${ids.alpha}`);
    expect(r.status).toBe(200);
    const t = r.body.data.template;
    expect(t).toMatchObject({
      id: ids.alpha,
      bot_id: botA.id,
      title: 'alpha',
      type: 0,
      msgtype: 1,
      status: 0,
      test_data: '{"who":"tester"}',
      test_channel: '1234',
      content: 'Hello {{ data.who }}',
      version: 1,
      banned: false,
    });
    expect(Object.keys(t).sort()).toEqual(
      [
        'banned',
        'bot_id',
        'consumption',
        'content',
        'created_at',
        'id',
        'msgtype',
        'status',
        'test_channel',
        'test_data',
        'title',
        'type',
        'updated_at',
        'version',
      ].sort(),
    );
    // The same record the bot reads through its own API.
    const own = await app.request<ListData>('GET', '/api/v3/template/list', { bot: botA.token });
    expect({ ...own.body.data.items.find((x) => x.id === ids.alpha), bot_id: botA.id }).toEqual(t);
  });

  it("finds another bot's template too", async () => {
    const r = await get<{ template: Tpl }>(`/admin/api/template/view?id=${ids.gamma}`);
    expect(r.body.data.template).toMatchObject({ id: ids.gamma, bot_id: botB.id });
  });

  it('404 (40401) for an unknown or deleted template', async () => {
    for (const id of ['NoSuchTemplate00', ids.gone]) {
      const r = await get(`/admin/api/template/view?id=${id}`);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe(40401);
    }
  });

  it('400 (40000) without id', async () => {
    const r = await get('/admin/api/template/view');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40000);
    expect(r.body.message).toContain('id');
  });
});

describe('admin authentication', () => {
  it.each(['/admin/api/template/list', '/admin/api/template/view?id=x'])(
    '%s needs the admin token',
    async (path) => {
      const none = await app.request('GET', path);
      expect(none.status).toBe(401);
      expect(none.body.code).toBe(40100);
      const wrong = await get(path, `${TEST_ADMIN_TOKEN}x`);
      expect(wrong.status).toBe(401);
      expect(wrong.body.code).toBe(40101);
      const asBot = await app.request('GET', path, { bot: botA.token });
      expect(asBot.status).toBe(401);
    },
  );

  it('is read-only: no POST', async () => {
    const r = await app.request('POST', '/admin/api/template/view', { admin: true, json: { id: ids.alpha } });
    expect(r.status).toBe(405);
  });
});
