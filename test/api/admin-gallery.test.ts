import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listGallery } from '../../src/domain/gallery/index.js';
import { call, signIn } from '../helpers/console.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The template gallery over the admin API: GET /admin/api/gallery/list and /view, and
 * POST /admin/api/gallery/use, which copies a gallery template into a bot's templates with a
 * sample as test_data.
 */

interface Item {
  id: string;
  title: string;
  sender: string;
  event: string;
  msgtype: number;
  description: string;
  samples: { id: string; title: string; data?: string; source?: string }[];
  content?: string;
}
interface Model {
  id: string;
  bot_id: string;
  title: string;
  msgtype: number;
  content: string;
  test_data: string;
  status: number;
}

let app: TestApp;
let bot: { id: string; token: string };
const gallery = await listGallery();

const get = <T>(path: string, headers: Record<string, string> = {}) =>
  app.request<T>('GET', path, { admin: true, headers });
const use = (json: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.request<{ model: Model; warnings: { code: number }[] }>('POST', '/admin/api/gallery/use', {
    admin: true,
    json,
    headers,
  });

beforeAll(async () => {
  app = await startTestApp('admin_gallery');
  bot = await createTestBot(app, { name: 'gallery bot' });
});
afterAll(() => app?.close());

describe('GET /admin/api/gallery/list', () => {
  it('lists every gallery template, without its text or sample data, in the caller language', async () => {
    const en = await get<{ items: Item[] }>('/admin/api/gallery/list', { 'Accept-Language': 'en-US' });
    expect(en.status).toBe(200);
    expect(en.body.data.items.map((i) => i.id)).toEqual(gallery.map((t) => t.id));
    const push = en.body.data.items.find((i) => i.id === 'github-push')!;
    expect(push).toEqual({
      id: 'github-push',
      title: 'GitHub push',
      sender: 'github',
      event: 'push',
      msgtype: 2,
      description: gallery.find((t) => t.id === 'github-push')!.description['en-US'],
      samples: [
        { id: 'branch', title: 'Push to a branch' },
        { id: 'tag', title: 'Tag pushed' },
        { id: 'deleted', title: 'Tag deleted' },
      ],
    });
    const zh = await get<{ items: Item[] }>('/admin/api/gallery/list');
    expect(zh.body.data.items.find((i) => i.id === 'github-push')!.title).toBe('GitHub 推送');
  });

  it('is for operators and studio sessions, not for bot tokens', async () => {
    const r = await app.request('GET', '/admin/api/gallery/list');
    expect(r.status).toBe(401);
    const asBot = await app.request('GET', '/admin/api/gallery/list', { bot: bot.token });
    expect(asBot.status).toBe(401);
  });
});

describe('GET /admin/api/gallery/view', () => {
  it('answers the template text and every sample with its data and source', async () => {
    const r = await get<{ template: Item }>('/admin/api/gallery/view?id=alertmanager', {
      'Accept-Language': 'en-US',
    });
    expect(r.status).toBe(200);
    const t = r.body.data.template;
    const want = gallery.find((g) => g.id === 'alertmanager')!;
    expect(t.content).toBe(want.content);
    expect(t.samples.map((s) => s.id)).toEqual(['firing', 'resolved']);
    for (const s of t.samples) {
      expect(JSON.parse(s.data!)).toHaveProperty('alerts');
      expect(s.source).toMatch(/^https:\/\/prometheus\.io\//);
    }
  });

  it('answers 404 naming the field for an unknown id, 400 without one', async () => {
    const r = await get<{ field: string }>('/admin/api/gallery/view?id=no-such-template');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(40401);
    expect(r.body.data).toEqual({ field: 'id' });
    const missing = await get('/admin/api/gallery/view');
    expect(missing.status).toBe(400);
  });
});

describe('POST /admin/api/gallery/use', () => {
  it("copies the template into the bot's templates with the first sample as test_data", async () => {
    const r = await use({ id: 'gitlab-pipeline', bot_id: bot.id }, { 'Accept-Language': 'en-US' });
    expect(r.status).toBe(200);
    const want = gallery.find((t) => t.id === 'gitlab-pipeline')!;
    expect(r.body.data.warnings).toEqual([]);
    expect(r.body.data.model).toMatchObject({
      bot_id: bot.id,
      title: 'GitLab pipeline',
      msgtype: 2,
      status: 0,
      content: want.content,
      test_data: want.samples[0]!.data,
    });
    // The bot sees it as its own template, and it renders with its test data.
    const list = await app.request<{ items: { id: string }[] }>('GET', '/api/v3/template/list', {
      bot: bot.token,
    });
    expect(list.body.data.items.map((i) => i.id)).toContain(r.body.data.model.id);
    const rendered = await app.request<{ type: number; content: string }>('POST', '/api/v3/template/render', {
      bot: bot.token,
      json: { id: r.body.data.model.id },
    });
    expect(rendered.status).toBe(200);
    expect(rendered.body.data.type).toBe(10);
    expect(JSON.parse(rendered.body.data.content)[0].theme).toBe('success');
  });

  it('takes a sample and a title', async () => {
    const r = await use({ id: 'gitlab-pipeline', bot_id: bot.id, sample_id: 'failed', title: 'CI 失败' });
    expect(r.status).toBe(200);
    const sample = gallery.find((t) => t.id === 'gitlab-pipeline')!.samples.find((s) => s.id === 'failed')!;
    expect(r.body.data.model).toMatchObject({ title: 'CI 失败', test_data: sample.data });
    const zh = await use({ id: 'gitlab-pipeline', bot_id: bot.id });
    expect(zh.body.data.model.title).toBe('GitLab 流水线');
  });

  it('gives every gallery template a copy that renders with its test data', async () => {
    for (const t of gallery) {
      const r = await use({ id: t.id, bot_id: bot.id });
      expect(r.status, t.id).toBe(200);
      expect(r.body.data.warnings, t.id).toEqual([]);
      const rendered = await app.request<{ type: number }>('POST', '/api/v3/template/render', {
        bot: bot.token,
        json: { id: r.body.data.model.id },
      });
      expect(rendered.status, t.id).toBe(200);
      expect(rendered.body.data.type, t.id).toBe(t.msgtype === 1 ? 9 : 10);
    }
  });

  it('refuses an unknown template, sample or bot with 404 naming the field', async () => {
    const noTemplate = await use({ id: 'nope', bot_id: bot.id });
    expect([noTemplate.status, noTemplate.body.code, noTemplate.body.data]).toEqual([
      404,
      40401,
      { field: 'id' },
    ]);
    const noSample = await use({ id: 'github-push', bot_id: bot.id, sample_id: 'nope' });
    expect([noSample.status, noSample.body.data]).toEqual([404, { field: 'sample_id' }]);
    const noBot = await use({ id: 'github-push', bot_id: 'no-such-bot' });
    expect([noBot.status, noBot.body.code]).toEqual([404, 40401]);
  });

  it("in a bot developer's session, copies into its own bot; another bot is not found", async () => {
    const session = await signIn(app, bot.token, 'bot');
    const own = await call(app, 'POST', '/admin/api/gallery/use', {
      cookie: session.cookie,
      csrf: session.csrf,
      json: { id: 'gitlab-push' },
    });
    expect([own.status, (own.body?.data as { model: { bot_id: string } } | undefined)?.model.bot_id]).toEqual(
      [200, bot.id],
    );
    const other = await createTestBot(app);
    const foreign = await call(app, 'POST', '/admin/api/gallery/use', {
      cookie: session.cookie,
      csrf: session.csrf,
      json: { id: 'gitlab-push', bot_id: other.id },
    });
    expect([foreign.status, foreign.body?.code]).toEqual([404, 40401]);
    const listed = await app.request<{ items: unknown[] }>(
      'GET',
      `/admin/api/template/list?bot_id=${other.id}`,
      {
        admin: true,
      },
    );
    expect(listed.body.data.items).toEqual([]);
  });

  it("refuses a body without id, an operator's without bot_id, or a title over 64 characters", async () => {
    for (const json of [
      { bot_id: bot.id },
      { id: 'github-push' },
      { id: 'github-push', bot_id: bot.id, title: 'x'.repeat(65) },
    ]) {
      const r = await use(json);
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(r.body.code).toBe(40000);
    }
  });

  it('is not for bot tokens', async () => {
    const r = await app.request('POST', '/admin/api/gallery/use', {
      bot: bot.token,
      json: { id: 'github-push', bot_id: bot.id },
    });
    expect(r.status).toBe(401);
  });
});
