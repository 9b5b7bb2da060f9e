import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('admin_bots');
});
afterAll(() => app?.close());

interface BotView {
  id: string;
  name: string;
  user_id: string;
  enabled: boolean;
  default_score: number;
  default_img_id: string;
  img_list: Array<{ id: string; url: string }>;
  created_at: number;
  updated_at: number;
}

describe('POST /admin/api/bot/create', () => {
  it('creates a bot with its user, returns the token once and stores only its hash', async () => {
    const r = await app.request<{ bot: BotView; token: string }>('POST', '/admin/api/bot/create', {
      admin: true,
      json: {
        name: '小助手',
        default_score: 50,
        default_img_id: 'a',
        img_list: [{ id: 'a', url: 'https://i.example/a.png' }],
      },
    });
    expect(r.status).toBe(200);
    const { bot, token } = r.body.data;
    expect(bot).toMatchObject({ name: '小助手', enabled: true, default_score: 50, default_img_id: 'a' });
    expect(bot.id).toMatch(/^\d+$/);
    expect(token).toMatch(new RegExp(`^hrb_${bot.id}\\.[A-Za-z0-9_-]{43}$`));
    expect(JSON.stringify(bot)).not.toContain(token);
    expect(JSON.stringify(bot)).not.toContain('token_hash');
    const stored = await app.res.store.bots.getWithTokenHash(bot.id);
    expect(stored?.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    const user = await app.res.store.users.get(bot.user_id);
    expect(user).toMatchObject({ id: bot.user_id, username: '小助手', bot: true });
  });

  it('defaults: score 0, no image, empty list', async () => {
    const { bot } = await createTestBot(app, { name: 'plain' });
    expect(bot).toMatchObject({ default_score: 0, default_img_id: '', img_list: [] });
  });

  it.each([
    [{}, 'name：为必填项'],
    [{ name: '' }, 'name：不能为空'],
    [{ name: 'n'.repeat(65) }, 'name：最多 64 个字符'],
    [{ name: 'b', default_score: 2201 }, 'default_score：必须在 0 到 2200 之间'],
    [{ name: 'b', default_img_id: 'x' }, 'default_img_id：必须是 img_list 中某张图片的 id'],
    [{ name: 'b', img_list: [{ id: 'a' }] }, 'img_list[0].url：为必填项'],
    [{ name: 'b', img_list: [{ id: 'a', url: 'ftp://x' }] }, 'img_list[0].url：格式不正确（http(s) 地址）'],
    [{ name: 'b', relay_url: 'ftp://x' }, 'relay_url：格式不正确（http(s) 地址）'],
    [
      {
        name: 'b',
        img_list: [
          { id: 'a', url: 'https://x/1' },
          { id: 'a', url: 'https://x/2' },
        ],
      },
      'img_list[1].id：图片 id "a" 重复',
    ],
    [
      { name: 'b', sink: 'relay', relay_url: 'http://a b/', upstream_token: 't' },
      'relay_url：必须是 http(s) 地址',
    ],
    [{ name: 'b', relay_url: 'https://[oops/' }, 'relay_url：必须是 http(s) 地址'],
    [{ name: '\u0000\u0007' }, 'name：格式不正确'],
    [{ name: 'b', rate_per_second: 0.0000001 }, 'rate_per_second：必须在 0.0001 到 1000000 之间'],
  ])('rejects %j', async (json, detail) => {
    const r = await app.request('POST', '/admin/api/bot/create', { admin: true, json });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`参数错误：${detail}`);
  });

  it("words a pattern's rule in the reader's language", async () => {
    const json = { name: 'b', relay_url: 'ftp://x' };
    const en = await app.request('POST', '/admin/api/bot/create', {
      admin: true,
      json,
      headers: { 'Accept-Language': 'en-US' },
    });
    expect(en.body.message).toBe('Invalid parameter: relay_url: has an invalid format (an http(s) URL)');
  });
});

describe('bot update, view, rotate-token', () => {
  it('updates only the given fields and keeps the default image consistent with the list', async () => {
    const { id } = await createTestBot(app, {
      img_list: [{ id: 'a', url: 'https://x/a' }],
      default_img_id: 'a',
    });
    const r = await app.request<{ bot: BotView }>('POST', '/admin/api/bot/update', {
      admin: true,
      json: { id, default_score: 99, name: 'renamed' },
    });
    expect(r.body.data.bot).toMatchObject({ name: 'renamed', default_score: 99, default_img_id: 'a' });
    const bad = await app.request('POST', '/admin/api/bot/update', {
      admin: true,
      json: { id, img_list: [] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('default_img_id');
    const ok = await app.request('POST', '/admin/api/bot/update', {
      admin: true,
      json: { id, img_list: [], default_img_id: '' },
    });
    expect(ok.status).toBe(200);
    const view = await app.request<{ bot: BotView }>('GET', `/admin/api/bot/view?id=${id}`, { admin: true });
    expect(view.body.data.bot).toMatchObject({ id, name: 'renamed', img_list: [], default_img_id: '' });
    const user = await app.res.store.users.get(view.body.data.bot.user_id);
    expect(user?.username).toBe('renamed');
  });

  it('answers 404 for an unknown bot', async () => {
    const r = await app.request('GET', '/admin/api/bot/view?id=404404', { admin: true });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 40401, message: '机器人不存在', data: {} });
    const en = await app.request('POST', '/admin/api/bot/update', {
      admin: true,
      json: { id: '404404', name: 'x' },
      headers: { 'Accept-Language': 'en' },
    });
    expect(en.body.message).toBe('bot not found');
  });

  it('rotating the token stops the old one at once', async () => {
    const { id, token } = await createTestBot(app);
    const path = '/api/v3/intimacy/index?user_id=u';
    expect((await app.request('GET', path, { bot: token })).status).toBe(200);
    const r = await app.request<{ token: string }>('POST', '/admin/api/bot/rotate-token', {
      admin: true,
      json: { id },
    });
    expect(r.status).toBe(200);
    const fresh = r.body.data.token;
    expect(fresh).not.toBe(token);
    expect((await app.request('GET', path, { bot: token })).status).toBe(401);
    expect((await app.request('GET', path, { bot: fresh })).status).toBe(200);
  });
});

describe('GET /admin/api/bot/list', () => {
  let ids: string[];
  let listApp: TestApp;
  beforeAll(async () => {
    listApp = await startTestApp('admin_bot_list');
    ids = [];
    for (const name of ['c', 'a', 'e', 'b', 'd']) ids.push((await createTestBot(listApp, { name })).id);
  });
  afterAll(() => listApp?.close());

  const list = (q: string) =>
    listApp.request<{ items: BotView[]; meta: Record<string, number>; sort: unknown }>(
      'GET',
      `/admin/api/bot/list${q}`,
      {
        admin: true,
      },
    );

  it('pages with the platform meta and echoes no sort when none was asked', async () => {
    const r = await list('?page=2&page_size=2');
    expect(r.body.data.meta).toEqual({ page: 2, page_total: 3, page_size: 2, total: 5 });
    expect(r.body.data.items.map((b) => b.id)).toEqual([...ids].sort().slice(2, 4));
    expect(r.body.data.sort).toEqual([]);
  });

  it('sorts by name descending and echoes the sort as a map', async () => {
    const r = await list('?sort=-name');
    expect(r.body.data.items.map((b) => b.name)).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(r.body.data.sort).toEqual({ name: -1 });
    expect(r.body.data.meta).toEqual({ page: 1, page_total: 1, page_size: 50, total: 5 });
  });

  it('answers an empty page past the end with correct meta', async () => {
    const r = await list('?page=9&page_size=2');
    expect(r.body.data.items).toEqual([]);
    expect(r.body.data.meta).toEqual({ page: 9, page_total: 3, page_size: 2, total: 5 });
  });

  it.each([
    ['?page=0', 'page'],
    ['?page=abc', 'page'],
    ['?page_size=51', 'page_size'],
    ['?page_size=-1', 'page_size'],
    ['?sort=token_hash', 'sort'],
  ])('rejects %s naming %s', async (q, field) => {
    const r = await list(q);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain(`${field}：`);
  });
});

describe('admin authentication', () => {
  it('requires the admin bearer token', async () => {
    const none = await app.request('GET', '/admin/api/bot/list');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe(40100);
    const wrong = await app.request('GET', '/admin/api/bot/list', { admin: 'x'.repeat(40) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe(40101);
    const { token } = await createTestBot(app);
    const botToken = await app.request('GET', '/admin/api/bot/list', { bot: token });
    expect(botToken.status).toBe(401);
  });
});
