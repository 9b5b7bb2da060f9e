import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

/** GET /admin/api/intimacy/view and POST /admin/api/intimacy/update: the bot API's rules, for operators. */

interface View {
  bot_id: string;
  user_id: string;
  img_url: string;
  social_info: string;
  last_modify: number;
  last_read: number;
  score: number;
  img_list: Array<{ id: string; url: string }>;
}

const IMAGES = [
  { id: '1', url: 'https://img.example.com/a.png' },
  { id: 'heart', url: 'https://img.example.com/heart.png' },
];

let app: TestApp;
let bot: { id: string; token: string };

beforeAll(async () => {
  app = await startTestApp('admin_intimacy');
  bot = await createTestBot(app, { default_score: 300, default_img_id: '1', img_list: IMAGES });
});
afterAll(() => app?.close());

const view = (botId: string, userId: string) =>
  app.request<View>('GET', `/admin/api/intimacy/view?bot_id=${botId}&user_id=${encodeURIComponent(userId)}`, {
    admin: true,
  });
const update = (json: unknown, headers: Record<string, string> = {}) =>
  app.request<View>('POST', '/admin/api/intimacy/update', { admin: true, json, headers });

describe('GET /admin/api/intimacy/view', () => {
  it("answers the bot's defaults for a user without a record, and creates nothing", async () => {
    const r = await view(bot.id, 'u-new');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      code: 0,
      message: '操作成功',
      data: {
        bot_id: bot.id,
        user_id: 'u-new',
        img_url: IMAGES[0]!.url,
        social_info: '',
        last_modify: 0,
        last_read: 0,
        score: 300,
        img_list: IMAGES,
      },
    });
    const rec = await app.res.store.bots.get(bot.id);
    expect(await app.res.store.intimacy.get(rec!, 'u-new')).toBeNull();
  });

  it('reads what the bot API reads', async () => {
    const set = await app.request('POST', '/api/v3/intimacy/update', {
      bot: bot.token,
      json: { user_id: 'u-bot', score: 99, social_info: 'set by the bot', img_id: 'heart' },
    });
    expect(set.status).toBe(200);
    const own = await app.request<Omit<View, 'bot_id' | 'user_id'>>(
      'GET',
      '/api/v3/intimacy/index?user_id=u-bot',
      {
        bot: bot.token,
      },
    );
    const r = await view(bot.id, 'u-bot');
    expect(r.body.data).toEqual({ bot_id: bot.id, user_id: 'u-bot', ...own.body.data });
    expect(r.body.data).toMatchObject({ score: 99, social_info: 'set by the bot', img_url: IMAGES[1]!.url });
  });

  it('404 (40401) for an unknown bot', async () => {
    const r = await view('999999', 'u1');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(40401);
  });

  it.each([
    ['user_id=u1', 'bot_id'],
    ['bot_id=1', 'user_id'],
    ['bot_id=1&bot_id=2&user_id=u1', 'bot_id'],
  ])('400 (40000) for %s, naming %s', async (query, field) => {
    const r = await app.request('GET', `/admin/api/intimacy/view?${query}`, { admin: true });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40000);
    expect(r.body.message).toContain(field);
  });
});

describe('POST /admin/api/intimacy/update', () => {
  it('creates the record from the defaults and answers it; the bot API reads the change', async () => {
    const before = Date.now();
    const r = await update({ bot_id: bot.id, user_id: 'u1', score: 520, social_info: 'hi', img_id: 'heart' });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    expect(r.body.data).toMatchObject({
      bot_id: bot.id,
      user_id: 'u1',
      score: 520,
      social_info: 'hi',
      img_url: IMAGES[1]!.url,
      img_list: IMAGES,
    });
    expect(r.body.data.last_modify).toBeGreaterThanOrEqual(before);
    const own = await app.request<View>('GET', '/api/v3/intimacy/index?user_id=u1', { bot: bot.token });
    expect(own.body.data).toMatchObject({ score: 520, social_info: 'hi', img_url: IMAGES[1]!.url });
    expect((await view(bot.id, 'u1')).body.data).toEqual(r.body.data);
  });

  it('changes only the given fields; img_id may be a number (as the platform example sends it)', async () => {
    await update({ bot_id: bot.id, user_id: 'u2', score: 10, social_info: 'keep me', img_id: 'heart' });
    const r = await update({ bot_id: bot.id, user_id: 'u2', img_id: 1 });
    expect(r.body.data).toMatchObject({ score: 10, social_info: 'keep me', img_url: IMAGES[0]!.url });
  });

  it.each([
    [{ score: 2201 }, 'score'],
    [{ score: -1 }, 'score'],
    [{ score: 1.5 }, 'score'],
    [{ social_info: 'x'.repeat(501) }, 'social_info'],
    [{ img_id: 'not-an-image' }, 'img_id'],
    [{ img_id: '' }, 'img_id'],
  ])('refuses %j with 40000 naming %s, and writes nothing', async (fields, field) => {
    const r = await update({ bot_id: bot.id, user_id: 'u-invalid', ...fields });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40000);
    expect(r.body.message).toContain(field);
    expect((await view(bot.id, 'u-invalid')).body.data.last_modify).toBe(0);
  });

  it('takes the extremes of the bot API (score 0 and 2200, social_info of 500)', async () => {
    expect(
      (await update({ bot_id: bot.id, user_id: 'u3', score: 2200, social_info: 'y'.repeat(500) })).status,
    ).toBe(200);
    expect((await update({ bot_id: bot.id, user_id: 'u3', score: 0 })).body.data.score).toBe(0);
  });

  it('answers in the caller language', async () => {
    const r = await update({ bot_id: bot.id, user_id: 'u4', score: 9999 }, { 'Accept-Language': 'en-US' });
    expect(r.body.message).toMatch(/^Invalid parameter: score/);
  });

  it('400 without bot_id or user_id; 404 (40401) for an unknown bot', async () => {
    for (const json of [
      { user_id: 'u1', score: 1 },
      { bot_id: bot.id, score: 1 },
    ]) {
      const r = await update(json);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(40000);
    }
    const r = await update({ bot_id: '999999', user_id: 'u1', score: 1 });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(40401);
  });

  it("a disabled bot's records stay readable and editable by operators (the bot API refuses the bot)", async () => {
    const off = await createTestBot(app, { default_score: 7 });
    const dis = await app.request('POST', '/admin/api/bot/update', {
      admin: true,
      json: { id: off.id, enabled: false },
    });
    expect(dis.status).toBe(200);
    expect((await view(off.id, 'u1')).body.data.score).toBe(7);
    expect((await update({ bot_id: off.id, user_id: 'u1', score: 8 })).body.data.score).toBe(8);
    const own = await app.request('GET', '/api/v3/intimacy/index?user_id=u1', { bot: off.token });
    expect(own.status).toBe(403);
  });
});

describe('admin authentication', () => {
  it.each([
    ['GET', '/admin/api/intimacy/view?bot_id=1&user_id=1'],
    ['POST', '/admin/api/intimacy/update'],
  ])('%s %s needs the admin token, not a bot token', async (method, path) => {
    const json = method === 'POST' ? { bot_id: bot.id, user_id: 'u1', score: 1 } : undefined;
    const none = await app.request(method, path, { json });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe(40100);
    const asBot = await app.request(method, path, { json, bot: bot.token });
    expect(asBot.status).toBe(401);
  });
});
