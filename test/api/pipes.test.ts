import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

/** The pipe back office: /admin/api/pipe/*. */
let app: TestApp;
let bot: { id: string; token: string; bot: Record<string, unknown> };
let guildId: string;
let channelId: string;

const en = { 'Accept-Language': 'en-US' };

interface PipeView {
  id: string;
  bot_id: string;
  title: string;
  channel_id: string;
  guild_id: string;
  template_id: string | null;
  enabled: boolean;
  rate_limit: { capacity: number; per_second: number } | null;
  rate_limit_in_force: { capacity: number; per_second: number };
  created_at: number;
  updated_at: number;
}

const create = (json: Record<string, unknown>) =>
  app.request<{ pipe: PipeView; access_token: string; url: string }>('POST', '/admin/api/pipe/create', {
    admin: true,
    json: { bot_id: bot.id, title: 'Deploys', channel_id: channelId, ...json },
    headers: en,
  });
const update = (json: Record<string, unknown>) =>
  app.request<{ pipe: PipeView }>('POST', '/admin/api/pipe/update', { admin: true, json, headers: en });

async function templateOf(token: string): Promise<string> {
  const r = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
    bot: token,
    json: { title: 't', content: 'Hello {{ data.name }}', msgtype: 1 },
  });
  if (r.status !== 200) throw new Error(r.text);
  return r.body.data.model.id;
}

beforeAll(async () => {
  app = await startTestApp('admin_pipes');
  bot = await createTestBot(app);
  const guild = await createTestGuild(app);
  guildId = guild.id;
  channelId = (await createTestChannel(app, guildId)).id;
  await addTestMember(app, guildId, bot.bot.user_id as string);
});
afterAll(() => app?.close());

describe('pipe/create', () => {
  it('answers the pipe, the token once and the callback URL; stores only the hash', async () => {
    const r = await create({});
    expect(r.status).toBe(200);
    const { pipe, access_token, url } = r.body.data;
    expect(pipe).toMatchObject({
      bot_id: bot.id,
      title: 'Deploys',
      channel_id: channelId,
      guild_id: guildId,
      template_id: null,
      enabled: true,
      rate_limit: null,
      rate_limit_in_force: { capacity: app.config.pipeRateBurst, per_second: app.config.pipeRatePerSecond },
    });
    expect(access_token).toMatch(new RegExp(`^hrp_${pipe.id}\\.[A-Za-z0-9_-]{43}$`));
    expect(url).toBe(`${app.config.publicUrl}/api/v3/message/send-pipemsg?access_token=${access_token}`);
    const view = await app.request('GET', `/admin/api/pipe/view?id=${pipe.id}`, { admin: true });
    expect(view.text).not.toContain(access_token.split('.')[1]);
    expect(view.text).not.toContain('token_hash');
    const { default: mongoose } = await import('mongoose');
    const conn = mongoose.createConnection(app.config.mongoUrl, {
      dbName: `herald_test_${app.config.redisPrefix.replace('herald-test-', '')}`,
    });
    await conn.asPromise();
    const doc = await conn.collection('pipes').findOne({ _id: pipe.id as never });
    await conn.close();
    expect(JSON.stringify(doc)).not.toContain(access_token.split('.')[1]);
    expect(doc?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('binds a template of the same bot and a custom rate limit', async () => {
    const templateId = await templateOf(bot.token);
    const r = await create({ template_id: templateId, rate_limit: { capacity: 10, per_second: 0.5 } });
    expect(r.status).toBe(200);
    expect(r.body.data.pipe).toMatchObject({
      template_id: templateId,
      rate_limit: { capacity: 10, per_second: 0.5 },
      rate_limit_in_force: { capacity: 10, per_second: 0.5 },
    });
  });

  it('refuses a channel that is not text, in a guild the bot has not joined, or unknown', async () => {
    const voice = await createTestChannel(app, guildId, { name: 'voice', type: 2 });
    const foreign = await createTestChannel(app, (await createTestGuild(app)).id);
    const cases: Array<[string, string]> = [
      [voice.id, 'must be a text channel'],
      ['404404', 'must be a text channel'],
      [foreign.id, "must be in a server the pipe's bot has joined"],
    ];
    for (const [id, rule] of cases) {
      const r = await create({ channel_id: id });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        code: 40000,
        message: `Invalid parameter: channel_id: ${rule}`,
        data: { field: 'channel_id' },
      });
    }
  });

  it("refuses another bot's template and an unknown bot", async () => {
    const other = await createTestBot(app);
    const foreignTemplate = await templateOf(other.token);
    const r = await create({ template_id: foreignTemplate });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("Invalid parameter: template_id: must be a template of the pipe's bot");
    const nobody = await create({ bot_id: '1' });
    expect(nobody.status).toBe(404);
  });

  it('validates the body and wants the admin token', async () => {
    const r = await create({ title: '' });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ field: 'title' });
    const limit = await create({ rate_limit: { capacity: 0, per_second: 1 } });
    expect(limit.status).toBe(400);
    expect(limit.body.data).toEqual({ field: 'rate_limit.capacity' });
    const anon = await app.request('POST', '/admin/api/pipe/create', { json: {} });
    expect(anon.status).toBe(401);
    const asBot = await app.request('GET', '/admin/api/pipe/list', { bot: bot.token });
    expect(asBot.status).toBe(401);
  });
});

describe('pipe/update, rotate-token, delete, view', () => {
  it('changes title, channel (and its guild), template, enabled and rate limit', async () => {
    const { pipe } = (await create({})).body.data;
    const guild2 = await createTestGuild(app);
    const channel2 = await createTestChannel(app, guild2.id);
    await addTestMember(app, guild2.id, bot.bot.user_id as string);
    const templateId = await templateOf(bot.token);
    const r = await update({
      id: pipe.id,
      title: 'Renamed',
      channel_id: channel2.id,
      template_id: templateId,
      enabled: false,
      rate_limit: { capacity: 5, per_second: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.pipe).toMatchObject({
      id: pipe.id,
      title: 'Renamed',
      channel_id: channel2.id,
      guild_id: guild2.id,
      template_id: templateId,
      enabled: false,
      rate_limit: { capacity: 5, per_second: 1 },
    });
    const back = await update({ id: pipe.id, template_id: null, rate_limit: null });
    expect(back.body.data.pipe).toMatchObject({ template_id: null, rate_limit: null, title: 'Renamed' });
    expect((await update({ id: pipe.id, channel_id: '404404' })).status).toBe(400);
    expect((await update({ id: '1', title: 'x' })).status).toBe(404);
  });

  it('rotate-token issues a new token and callback URL; delete removes the pipe', async () => {
    const { pipe, access_token } = (await create({})).body.data;
    const r = await app.request<{ access_token: string; url: string }>(
      'POST',
      '/admin/api/pipe/rotate-token',
      {
        admin: true,
        json: { id: pipe.id },
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.data.access_token).not.toBe(access_token);
    expect(r.body.data.access_token.startsWith(`hrp_${pipe.id}.`)).toBe(true);
    expect(r.body.data.url).toContain(r.body.data.access_token);
    const del = await app.request('POST', '/admin/api/pipe/delete', { admin: true, json: { id: pipe.id } });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({});
    const gone = await app.request('GET', `/admin/api/pipe/view?id=${pipe.id}`, { admin: true, headers: en });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ code: 40401, message: 'pipe not found', data: {} });
    expect(
      (await app.request('POST', '/admin/api/pipe/rotate-token', { admin: true, json: { id: pipe.id } }))
        .status,
    ).toBe(404);
    expect(
      (await app.request('POST', '/admin/api/pipe/delete', { admin: true, json: { id: pipe.id } })).status,
    ).toBe(404);
  });

  it('concurrent updates of one pipe lose nothing', async () => {
    const { pipe } = (await create({})).body.data;
    await Promise.all([update({ id: pipe.id, title: 'T' }), update({ id: pipe.id, enabled: false })]);
    const v = await app.request<{ pipe: PipeView }>('GET', `/admin/api/pipe/view?id=${pipe.id}`, {
      admin: true,
    });
    expect(v.body.data.pipe).toMatchObject({ title: 'T', enabled: false });
  });
});

describe('pipe/list', () => {
  it('pages, sorts and filters by bot', async () => {
    const other = await createTestBot(app);
    await addTestMember(app, guildId, other.bot.user_id as string);
    const mine: string[] = [];
    for (const title of ['b', 'a', 'c']) {
      const r = await app.request<{ pipe: PipeView }>('POST', '/admin/api/pipe/create', {
        admin: true,
        json: { bot_id: other.id, title, channel_id: channelId },
      });
      mine.push(r.body.data.pipe.id);
    }
    const r = await app.request<{ items: PipeView[]; meta: Record<string, number>; sort: unknown }>(
      'GET',
      `/admin/api/pipe/list?bot_id=${other.id}&page=1&page_size=2&sort=-title`,
      { admin: true },
    );
    expect(r.status).toBe(200);
    expect(r.body.data.items.map((p) => p.title)).toEqual(['c', 'b']);
    expect(r.body.data.meta).toEqual({ page: 1, page_total: 2, page_size: 2, total: 3 });
    expect(r.body.data.sort).toEqual({ title: -1 });
    const page2 = await app.request<{ items: PipeView[] }>(
      'GET',
      `/admin/api/pipe/list?bot_id=${other.id}&page=2&page_size=2&sort=-title`,
      { admin: true },
    );
    expect(page2.body.data.items.map((p) => p.title)).toEqual(['a']);
    const all = await app.request<{ items: PipeView[]; sort: unknown; meta: { total: number } }>(
      'GET',
      '/admin/api/pipe/list',
      { admin: true },
    );
    expect(all.body.data.sort).toEqual([]);
    expect(all.body.data.meta.total).toBeGreaterThan(3);
    const bad = await app.request('GET', '/admin/api/pipe/list?sort=token_hash', { admin: true });
    expect(bad.status).toBe(400);
  });
});
