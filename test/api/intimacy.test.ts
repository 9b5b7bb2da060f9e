import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

interface View {
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
let token: string;
let botId: string;

beforeAll(async () => {
  app = await startTestApp('intimacy');
  const bot = await createTestBot(app, { default_score: 300, default_img_id: '1', img_list: IMAGES });
  token = bot.token;
  botId = bot.id;
});
afterAll(() => app?.close());

const read = (userId: string, t = token) =>
  app.request<View>('GET', `/api/v3/intimacy/index?user_id=${encodeURIComponent(userId)}`, { bot: t });
const update = (json: unknown, t = token) => app.request('POST', '/api/v3/intimacy/update', { bot: t, json });

describe('GET /api/v3/intimacy/index', () => {
  it("answers the bot's defaults for a user without a record, and creates nothing", async () => {
    const r = await read('u-new');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      code: 0,
      message: '操作成功',
      data: {
        img_url: IMAGES[0]!.url,
        social_info: '',
        last_modify: 0,
        last_read: 0,
        score: 300,
        img_list: IMAGES,
      },
    });
    const bot = await app.res.store.bots.get(botId);
    expect(await app.res.store.intimacy.get(bot!, 'u-new')).toBeNull();
  });

  it('requires user_id', async () => {
    const r = await app.request('GET', '/api/v3/intimacy/index', { bot: token });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40000);
    expect(r.body.message).toContain('user_id');
  });

  it('rejects a repeated user_id (array) with a type error naming the field', async () => {
    const r = await app.request('GET', '/api/v3/intimacy/index?user_id=a&user_id=b', { bot: token });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('参数错误：user_id：必须是字符串');
  });
});

describe('POST /api/v3/intimacy/update', () => {
  it('creates the record from the defaults, sets last_modify in ms, then reads it back', async () => {
    const before = Date.now();
    const r = await update({ user_id: 'u1', score: 520 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 0, message: '操作成功', data: {} });
    const v = (await read('u1')).body.data;
    expect(v.score).toBe(520);
    expect(v.social_info).toBe('');
    expect(v.img_url).toBe(IMAGES[0]!.url);
    expect(v.last_modify).toBeGreaterThanOrEqual(before);
    expect(v.last_modify).toBeLessThanOrEqual(Date.now());
    expect(v.last_read).toBe(0);
  });

  it('keeps omitted fields as they were', async () => {
    await update({ user_id: 'u2', score: 10, social_info: 'hello', img_id: 'heart' });
    await update({ user_id: 'u2', social_info: 'changed' });
    const v = (await read('u2')).body.data;
    expect(v).toMatchObject({ score: 10, social_info: 'changed', img_url: IMAGES[1]!.url });
    await update({ user_id: 'u2', score: 0 });
    expect((await read('u2')).body.data).toMatchObject({ score: 0, social_info: 'changed' });
  });

  it('accepts img_id as a number, as the platform example sends it', async () => {
    expect((await update({ user_id: 'u3', img_id: 1 })).status).toBe(200);
    expect((await read('u3')).body.data.img_url).toBe(IMAGES[0]!.url);
  });

  it('accepts the score bounds 0 and 2200', async () => {
    expect((await update({ user_id: 'u4', score: 0 })).status).toBe(200);
    expect((await update({ user_id: 'u4', score: 2200 })).status).toBe(200);
    expect((await read('u4')).body.data.score).toBe(2200);
  });

  it('counts social_info in characters: 500 CJK or emoji characters fit, 501 do not', async () => {
    const cjk = '亲'.repeat(500);
    expect((await update({ user_id: 'u5', social_info: cjk })).status).toBe(200);
    expect((await read('u5')).body.data.social_info).toBe(cjk);
    const emoji = '😀'.repeat(500);
    expect((await update({ user_id: 'u5', social_info: emoji })).status).toBe(200);
    const r = await update({ user_id: 'u5', social_info: `${emoji}x` });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('参数错误：social_info：最多 500 个字符');
  });

  it.each([
    [{ score: 2201 }, 'score', '必须在 0 到 2200 之间'],
    [{ score: -1 }, 'score', '必须在 0 到 2200 之间'],
    [{ score: 1.5 }, 'score', '必须是整数'],
    [{ score: '10' }, 'score', '必须是整数'],
    [{ social_info: 5 }, 'social_info', '必须是字符串'],
    [{ img_id: true }, 'img_id', '必须是字符串或整数'],
    [{ img_id: 'nope' }, 'img_id', '必须是机器人 img_list 中某张图片的 id'],
    [{ img_id: '' }, 'img_id', '不能为空'],
  ])('rejects %j with 400 naming %s', async (fields, field, rule) => {
    const r = await update({ user_id: 'u-bad', ...fields });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40000);
    expect(r.body.message).toBe(`参数错误：${field}：${rule}`);
    expect(r.body.data).toEqual({ field });
  });

  it.each([
    [{}, 'user_id：为必填项'],
    [{ user_id: '' }, 'user_id：不能为空'],
    [{ user_id: 'x'.repeat(65) }, 'user_id：最多 64 个字符'],
    [{ user_id: 123 }, 'user_id：必须是字符串'],
    [{ user_id: { $gt: '' } }, 'user_id：必须是字符串'],
  ])('rejects user_id in %j', async (body, detail) => {
    const r = await update(body);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`参数错误：${detail}`);
  });

  it('answers validation errors in English for Accept-Language: en-US', async () => {
    const r = await app.request('POST', '/api/v3/intimacy/update', {
      bot: token,
      json: { user_id: 'u', score: 9999 },
      headers: { 'Accept-Language': 'en-US,en;q=0.9' },
    });
    expect(r.body.message).toBe('Invalid parameter: score: must be from 0 to 2200');
  });

  it('ignores unknown fields', async () => {
    expect((await update({ user_id: 'u6', score: 7, last_read: 99, bot_id: 'other' })).status).toBe(200);
    expect((await read('u6')).body.data).toMatchObject({ score: 7, last_read: 0 });
  });

  it('loses nothing when updates of one record race (five rounds)', async () => {
    // Without the record lock, FerretDB v1 loses one of these fields in most rounds.
    for (let round = 0; round < 5; round++) {
      const user = `race-${round}`;
      const results = await Promise.all([
        update({ user_id: user, score: 1234 }),
        update({ user_id: user, social_info: 'both fields survive' }),
        update({ user_id: user, img_id: 'heart' }),
        ...Array.from({ length: 7 }, () => update({ user_id: user })),
      ]);
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect((await read(user)).body.data).toMatchObject({
        score: 1234,
        social_info: 'both fields survive',
        img_url: IMAGES[1]!.url,
      });
    }
  });

  it('falls back to the default image when the chosen one leaves the bot list', async () => {
    await update({ user_id: 'u7', img_id: 'heart' });
    const r = await app.request('POST', '/admin/api/bot/update', {
      admin: true,
      json: { id: botId, img_list: [IMAGES[0]] },
    });
    expect(r.status).toBe(200);
    expect((await read('u7')).body.data.img_url).toBe(IMAGES[0]!.url);
    await app.request('POST', '/admin/api/bot/update', {
      admin: true,
      json: { id: botId, img_list: IMAGES },
    });
  });
});

describe('bot isolation and authentication', () => {
  it("never shows one bot's records to another", async () => {
    const other = await createTestBot(app, { default_score: 5 });
    await update({ user_id: 'shared-user', score: 2000, social_info: 'first bot' });
    const v = (await read('shared-user', other.token)).body.data;
    expect(v).toMatchObject({ score: 5, social_info: '', last_modify: 0, img_list: [] });
    await update({ user_id: 'shared-user', score: 1 }, other.token);
    expect((await read('shared-user')).body.data).toMatchObject({ score: 2000, social_info: 'first bot' });
  });

  it('answers 401 without a token, with an unknown token, and with a forged secret', async () => {
    const none = await app.request('GET', '/api/v3/intimacy/index?user_id=u');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ code: 40100, message: '缺少身份凭证', data: {} });
    const bad = await read('u', 'not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe(40101);
    const forged = await read('u', `hrb_${botId}.${'A'.repeat(43)}`);
    expect(forged.status).toBe(401);
    const wrongScheme = await app.request('GET', '/api/v3/intimacy/index?user_id=u', {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(wrongScheme.status).toBe(401);
  });

  it('accepts the scheme in any case', async () => {
    const r = await app.request('GET', '/api/v3/intimacy/index?user_id=u', {
      headers: { Authorization: `bot ${token}` },
    });
    expect(r.status).toBe(200);
  });

  it('answers 403 for a disabled bot, and 200 again once re-enabled', async () => {
    const b = await createTestBot(app);
    await app.request('POST', '/admin/api/bot/update', { admin: true, json: { id: b.id, enabled: false } });
    const r = await read('u', b.token);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(40300);
    await app.request('POST', '/admin/api/bot/update', { admin: true, json: { id: b.id, enabled: true } });
    expect((await read('u', b.token)).status).toBe(200);
  });
});
