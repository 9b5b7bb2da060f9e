import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TITLE_LENGTH } from '../../src/domain/templates/index.js';
import { copyTitle } from '../../src/domain/templates/studio.js';
import { botRestBucketKey } from '../../src/redis/keys.js';
import { call, type SignedIn, signIn, useConsoleDir } from '../helpers/console.js';
import { createTestChannel, createTestGuild } from '../helpers/directory.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, createWorld, enqueueDirect, sendPipe, type World } from '../workers/helpers.js';

/**
 * The template studio's API (/admin/api/template/*, src/domain/templates/studio.ts): operators
 * and bot sessions, bot scoping, review. No worker runs here: queued messages stay queued (the
 * usage count reads them); delivery is test/api/admin-template-send-test.test.ts's.
 */

interface Tpl {
  id: string;
  bot_id: string;
  title: string;
  status: number;
  banned: boolean;
  consumption: number;
  version: number;
  content: string;
  msgtype: number;
  test_data: string;
  test_channel: string;
}
interface Saved {
  model: Tpl;
  warnings: Array<Record<string, unknown>>;
}
type Envelope<T> = { status: number; code: number; message: string; data: T };

const dir = useConsoleDir();
let app: TestApp;
let a: World;
let b: World;
let sessionA: SignedIn;
let sessionB: SignedIn;

/** An operator's call (Bearer ADMIN_TOKEN). */
async function op<T = Record<string, unknown>>(
  method: string,
  path: string,
  json?: unknown,
): Promise<Envelope<T>> {
  const r = await app.request<T>(method, path, { admin: true, json });
  return { status: r.status, ...r.body };
}
/** A bot session's call (cookie and CSRF token). */
async function as<T = Record<string, unknown>>(
  s: SignedIn,
  method: string,
  path: string,
  json?: unknown,
): Promise<Envelope<T>> {
  const r = await call(app, method, path, { cookie: s.cookie, csrf: s.csrf, json });
  return { status: r.status, ...(r.body as { code: number; message: string; data: T }) };
}
/** Creates a template of `w`'s bot (operator) and answers it. */
async function make(w: World, json: Record<string, unknown> = {}): Promise<Tpl> {
  const r = await op<Saved>('POST', '/admin/api/template/create', {
    bot_id: w.bot.id,
    title: 'tpl',
    content: 'hello {{ data.who }}',
    ...json,
  });
  if (r.status !== 200) throw new Error(JSON.stringify(r));
  return r.data.model;
}
const review = (id: string, action: string, extra: Record<string, unknown> = {}) =>
  op<{ model: Tpl }>('POST', '/admin/api/template/review', { id, action, ...extra });
const submit = (id: string) => op<{ model: Tpl }>('POST', '/admin/api/template/submit', { id });
const view = async (id: string) =>
  (await op<{ template: Tpl }>('GET', `/admin/api/template/view?id=${id}`)).data.template;

beforeAll(async () => {
  // A slow refill (1 token per second) lets the budget tests read exact counts on a busy machine.
  app = await startTestApp('admin_template_studio', { CONSOLE_DIR: dir, BOT_RATE_PER_SECOND: '1' });
  a = await createWorld(app, { name: 'bot a' });
  b = await createWorld(app, { name: 'bot b' });
  sessionA = await signIn(app, a.bot.token, 'bot');
  sessionB = await signIn(app, b.bot.token, 'bot');
});
afterAll(() => app?.close());

describe('bot scoping', () => {
  it("a bot session lists, views and changes only its own bot's templates", async () => {
    const mine = await make(a, { title: 'scoped mine' });
    const theirs = await make(b, { title: 'scoped theirs' });
    const list = await as<{ items: Tpl[] }>(sessionA, 'GET', '/admin/api/template/list?q=scoped');
    expect(list.data.items.map((t) => t.id)).toEqual([mine.id]);
    expect((await as(sessionA, 'GET', `/admin/api/template/view?id=${mine.id}`)).status).toBe(200);

    // Another bot's template answers exactly as an id that never existed.
    const never = 'ZZZZZZZZZZZZZZZZ';
    for (const id of [theirs.id, never]) {
      const calls: Array<[string, string, unknown?]> = [
        ['GET', `/admin/api/template/view?id=${id}`],
        ['GET', `/admin/api/template/usage?id=${id}`],
        ['POST', '/admin/api/template/update', { id, title: 'taken' }],
        ['POST', '/admin/api/template/duplicate', { id }],
        ['POST', '/admin/api/template/delete', { id }],
        ['POST', '/admin/api/template/render', { id }],
        ['POST', '/admin/api/template/send-test', { id, channel_id: a.channelId }],
        ['POST', '/admin/api/template/submit', { id }],
      ];
      for (const [method, path, json] of calls) {
        const r = await as(sessionA, method, path, json);
        expect([path, r.status, r.code, r.data], path).toEqual([path, 404, 40401, { field: 'id' }]);
      }
    }
    expect(await view(theirs.id)).toMatchObject({ title: 'scoped theirs', status: 0, version: 1 });
  });

  it("naming another bot is 'not found' for a bot session; its own bot is fine", async () => {
    const other = b.bot.id;
    for (const [method, path, json] of [
      ['GET', `/admin/api/template/list?bot_id=${other}`],
      ['GET', `/admin/api/template/channels?bot_id=${other}`],
      ['POST', '/admin/api/template/create', { bot_id: other, title: 't', content: 'c' }],
      ['POST', '/admin/api/template/render', { bot_id: other, content: 'c' }],
      ['POST', '/admin/api/template/send-test', { bot_id: other, content: 'c', channel_id: b.channelId }],
    ] as Array<[string, string, unknown?]>) {
      const r = await as(sessionA, method, path, json);
      expect([path, r.status, r.code, r.data]).toEqual([path, 404, 40401, { field: 'bot_id' }]);
    }
    const own = await as<Saved>(sessionA, 'POST', '/admin/api/template/create', {
      bot_id: a.bot.id,
      title: 'own bot named',
      content: 'c',
    });
    expect([own.status, own.data.model.bot_id]).toEqual([200, a.bot.id]);
    const implied = await as<Saved>(sessionB, 'POST', '/admin/api/template/create', {
      title: 'implied',
      content: 'c',
    });
    expect([implied.status, implied.data.model.bot_id]).toEqual([200, b.bot.id]);
    const list = await as<{ items: Tpl[] }>(sessionB, 'GET', `/admin/api/template/list?bot_id=${b.bot.id}`);
    expect(list.data.items.every((t) => t.bot_id === b.bot.id)).toBe(true);
    expect(list.data.items.map((t) => t.title)).toContain('implied');
  });

  it('an operator must name the bot of a new template or an inline render; an unknown bot is 404', async () => {
    for (const [path, json] of [
      ['/admin/api/template/create', { title: 't', content: 'c' }],
      ['/admin/api/template/render', { content: 'c' }],
      ['/admin/api/template/send-test', { content: 'c', channel_id: a.channelId }],
    ] as const) {
      const r = await op(path === '/admin/api/template/create' ? 'POST' : 'POST', path, json);
      expect([r.status, r.code, r.data]).toEqual([400, 40000, { field: 'bot_id' }]);
    }
    const r = await op('GET', '/admin/api/template/channels');
    expect([r.status, r.data]).toEqual([400, { field: 'bot_id' }]);
    const unknown = await op('POST', '/admin/api/template/create', {
      bot_id: '424242',
      title: 't',
      content: 'c',
    });
    expect([unknown.status, unknown.code, unknown.data]).toEqual([404, 40401, { field: 'bot_id' }]);
  });
});

describe('list', () => {
  it('filters by title (any case, taken literally), status and banned', async () => {
    const w = await createWorld(app, { name: 'list bot' });
    const alpha = await make(w, { title: 'Deploy Alpha' });
    const beta = await make(w, { title: 'deploy.beta' });
    const gamma = await make(w, { title: 'Release gamma' });
    await submit(beta.id);
    await review(gamma.id, 'ban');
    const titles = async (query: string) =>
      (
        await op<{ items: Tpl[] }>('GET', `/admin/api/template/list?bot_id=${w.bot.id}&sort=title&${query}`)
      ).data.items.map((t) => t.title);
    expect(await titles('q=DEPLOY')).toEqual(['Deploy Alpha', 'deploy.beta']);
    // "." is a dot, not any character.
    expect(await titles('q=y.b')).toEqual(['deploy.beta']);
    expect(await titles('q=y%20a')).toEqual(['Deploy Alpha']);
    expect(await titles('q=.%2A')).toEqual([]);
    expect(await titles('status=1')).toEqual(['deploy.beta']);
    expect(await titles('status=0')).toEqual(['Deploy Alpha', 'Release gamma']);
    expect(await titles('banned=true')).toEqual(['Release gamma']);
    expect(await titles('banned=false')).toEqual(['Deploy Alpha', 'deploy.beta']);
    expect(await titles('banned=false&status=0&q=alpha')).toEqual(['Deploy Alpha']);
    expect(alpha.bot_id).toBe(w.bot.id);
    const meta = await op<{ meta: Record<string, number> }>(
      'GET',
      `/admin/api/template/list?bot_id=${w.bot.id}&q=deploy&page_size=1`,
    );
    expect(meta.data.meta).toEqual({ page: 1, page_total: 2, page_size: 1, total: 2 });
  });

  it.each([
    ['status=4', 'status'],
    ['status=x', 'status'],
    ['banned=yes', 'banned'],
    ['q=a&q=b', 'q'],
    [`q=${'x'.repeat(65)}`, 'q'],
  ])('refuses %s with 40000 naming %s', async (query, field) => {
    const r = await op('GET', `/admin/api/template/list?${query}`);
    expect([r.status, r.code]).toEqual([400, 40000]);
    expect(r.message).toContain(field);
  });
});

describe('create, update, duplicate, delete', () => {
  it('creates with every field, warns on a bad test render, and updates', async () => {
    const r = await as<Saved>(sessionA, 'POST', '/admin/api/template/create', {
      title: 'card',
      content: '[{"type":"card","modules":[{"type":"headline","text":"{{ data.t|json_escape }}"}]}]',
      msgtype: 2,
      type: 0,
      test_data: '{"t": 5}',
      test_channel: a.channelId,
    });
    expect(r.status).toBe(200);
    expect(r.data.model).toMatchObject({
      msgtype: 2,
      test_channel: a.channelId,
      bot_id: a.bot.id,
      status: 0,
    });
    // No module is a headline: the test render warns, the save went through.
    expect(r.data.warnings.map((w) => w.code)).toEqual([40014]);
    const u = await as<Saved>(sessionA, 'POST', '/admin/api/template/update', {
      id: r.data.model.id,
      content:
        '[{"type":"card","modules":[{"type":"header","text":{"type":"plain-text","content":"{{ data.t|json_escape }}"}}]}]',
    });
    expect([u.status, u.data.warnings, u.data.model.version]).toEqual([200, [], 2]);
    const bad = await as(sessionA, 'POST', '/admin/api/template/update', {
      id: r.data.model.id,
      content: '{{ x',
    });
    expect([bad.status, bad.code]).toEqual([400, 40010]);
    expect(bad.data).toMatchObject({ line: 1 });
  });

  it('duplicates as a new, unreviewed template of the same bot: "<title> copy" cut to 64 characters', async () => {
    const src = await make(a, {
      title: 'x'.repeat(60),
      test_data: '{"who":"ann"}',
      test_channel: a.channelId,
      msgtype: 1,
    });
    await submit(src.id);
    await review(src.id, 'approve');
    const d = await as<Saved>(sessionA, 'POST', '/admin/api/template/duplicate', { id: src.id });
    expect(d.status).toBe(200);
    expect(d.data.model).toMatchObject({
      bot_id: a.bot.id,
      title: `${'x'.repeat(60)} cop`,
      content: src.content,
      msgtype: 1,
      test_data: '{"who":"ann"}',
      test_channel: a.channelId,
      status: 0,
      consumption: 1,
      banned: false,
      version: 1,
    });
    expect(d.data.model.id).not.toBe(src.id);
    const named = await op<Saved>('POST', '/admin/api/template/duplicate', { id: src.id, title: '副本' });
    expect(named.data.model).toMatchObject({ title: '副本', bot_id: a.bot.id });
    // Counted in characters: CJK and emoji are one each.
    expect([...copyTitle('题'.repeat(62))].length).toBe(MAX_TITLE_LENGTH);
    expect(copyTitle('Deploy')).toBe('Deploy copy');
    expect((await view(src.id)).status).toBe(2);
  });

  it('deletes: the template leaves the list and answers 404', async () => {
    const t = await make(b, { title: 'to delete' });
    const r = await as(sessionB, 'POST', '/admin/api/template/delete', { id: t.id });
    expect([r.status, r.data]).toEqual([200, {}]);
    expect((await op('GET', `/admin/api/template/view?id=${t.id}`)).status).toBe(404);
    expect((await as(sessionB, 'POST', '/admin/api/template/delete', { id: t.id })).status).toBe(404);
  });
});

describe('render', () => {
  it('renders a stored template, inline content of a named bot, and carries errors with positions', async () => {
    const t = await make(a, { content: '**hi** {{ data.who }}', test_data: '{"who":"tester"}' });
    const clean = { warnings: [], warning_count: 0 };
    expect((await as(sessionA, 'POST', '/admin/api/template/render', { id: t.id })).data).toEqual({
      type: 9,
      content: '**hi** tester',
      ...clean,
    });
    expect((await op('POST', '/admin/api/template/render', { id: t.id, data: { who: 'op' } })).data).toEqual({
      type: 9,
      content: '**hi** op',
      ...clean,
    });
    const inline = await op('POST', '/admin/api/template/render', {
      bot_id: a.bot.id,
      content: '{{ PLATFORM.getChannel().name }}: {{ data.n }}',
      data: '{"n": 3}',
      channel_id: a.channelId,
    });
    expect(inline.data).toEqual({ type: 9, content: 'test channel: 3', ...clean });
    const mine = await as(sessionA, 'POST', '/admin/api/template/render', {
      content: 'x {{ data.y }}',
      data: { y: 1 },
    });
    expect(mine.data).toEqual({ type: 9, content: 'x 1', ...clean });
    // What PHP renders past a warning renders, and the warnings come with it, placed.
    const warned = await as(sessionA, 'POST', '/admin/api/template/render', {
      content: 'x {{ data.y }}\n{{ -data.n|number_format(1) }}',
      data: { y: [1], n: 1234.5 },
    });
    expect(warned.data).toEqual({
      type: 9,
      content: 'x Array\n-1',
      warnings: [
        { message: 'Array to string conversion', line: 1, column: 3 },
        { message: 'A non-numeric value encountered', line: 2, column: 4 },
      ],
      warning_count: 2,
    });
    const broken = await as(sessionA, 'POST', '/admin/api/template/render', {
      content: 'a\n{{ data.y |nope }}',
    });
    expect([broken.status, broken.code]).toEqual([400, 40010]);
    expect(broken.data).toMatchObject({ line: 2 });
    // A channel of a server the bot has not joined is "not found".
    const elsewhere = await as(sessionA, 'POST', '/admin/api/template/render', {
      content: 'x',
      channel_id: b.channelId,
    });
    expect([elsewhere.status, elsewhere.code, elsewhere.data]).toEqual([404, 40401, { field: 'channel_id' }]);
  });
});

describe('render budget', () => {
  it("a bot session's previews take the bot's render budget, shared with its own render calls; operators' do not", async () => {
    const w = await createWorld(app, { name: 'metered bot' });
    const s = await signIn(app, w.bot.token, 'bot');
    const first = await call(app, 'POST', '/admin/api/template/render', {
      cookie: s.cookie,
      csrf: s.csrf,
      json: { content: 'x' },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-rate-limit-bucket')).toBe('template/render');
    const remaining = Number(first.headers.get('x-rate-limit-remaining'));
    expect(remaining).toBe(app.config.botRateBurst - 1);
    const own = await app.request('POST', '/api/v3/template/render', {
      bot: w.bot.token,
      json: { content: 'y' },
    });
    expect(Number(own.headers.get('x-rate-limit-remaining'))).toBe(remaining - 1);
    const byOperator = await app.request('POST', '/admin/api/template/render', {
      admin: true,
      json: { bot_id: w.bot.id, content: 'z' },
    });
    expect([byOperator.status, byOperator.headers.get('x-rate-limit-bucket')]).toEqual([200, null]);
  });
});

describe('studio budget', () => {
  it("a bot session's saves (each a test render), usage scans and captures take the bot's REST budget", async () => {
    const w = await createWorld(app, { name: 'budget bot' });
    const s = await signIn(app, w.bot.token, 'bot');
    const t = await make(w, { content: 'n={{ data.n }}', test_data: '{"n":1}' });
    const pipe = await createPipe(app, w, { template_id: t.id });
    const bucketOf = async (method: string, path: string, json?: unknown) => {
      const r = await call(app, method, path, { cookie: s.cookie, csrf: s.csrf, json });
      expect(r.status, `${path} ${r.text}`).toBe(200);
      return r.headers.get('x-rate-limit-bucket');
    };
    const made = await call(app, 'POST', '/admin/api/template/create', {
      cookie: s.cookie,
      csrf: s.csrf,
      json: { title: 'metered', content: 'x {{ data.n }}', test_data: '{"n":2}' },
    });
    expect(made.headers.get('x-rate-limit-bucket')).toBe('template/create');
    // Shared with the bot's own calls to the same work: one take each.
    const left = Number(made.headers.get('x-rate-limit-remaining'));
    const own = await app.request('POST', '/api/v3/template/create', {
      bot: w.bot.token,
      json: { title: 'own', content: 'y' },
    });
    expect(Number(own.headers.get('x-rate-limit-remaining'))).toBe(left - 1);
    const id = (made.body?.data.model as Tpl | undefined)?.id as string;
    expect([
      await bucketOf('GET', '/admin/api/template/list'),
      await bucketOf('POST', '/admin/api/template/update', { id, title: 'metered 2' }),
      await bucketOf('POST', '/admin/api/template/duplicate', { id }),
      await bucketOf('POST', '/admin/api/gallery/use', { id: 'generic-json' }),
      await bucketOf('GET', `/admin/api/template/usage?id=${t.id}`),
      await bucketOf('GET', '/admin/api/template/channels'),
      await bucketOf('GET', `/admin/api/pipe/captures?id=${pipe.id}`),
      await bucketOf('POST', '/admin/api/template/submit', { id }),
      await bucketOf('POST', '/admin/api/template/delete', { id }),
    ]).toEqual([
      'template/list',
      'template/update',
      'template/create',
      'template/create',
      'template/usage',
      'template/channels',
      'pipe/captures',
      'template/submit',
      'template/delete',
    ]);
    // Spent, the next save is refused before anything is rendered or written.
    const key = botRestBucketKey(app.config.redisPrefix, w.bot.id, 'template/update');
    expect(await app.res.redis.exists(key)).toBe(1);
    await app.res.redis.set(key, `0 ${Date.now() * 1000}`, 'PX', 60_000);
    const refused = await call(app, 'POST', '/admin/api/template/update', {
      cookie: s.cookie,
      csrf: s.csrf,
      json: { id: t.id, title: 'refused' },
    });
    expect([refused.status, refused.body?.code]).toEqual([429, 42900]);
    expect((await view(t.id)).title).toBe('tpl');
    // Operators are not metered.
    const byOperator = await app.request('POST', '/admin/api/template/update', {
      admin: true,
      json: { id: t.id, title: 'by operator' },
    });
    expect([byOperator.status, byOperator.headers.get('x-rate-limit-bucket')]).toEqual([200, null]);
  });
});

describe('channels', () => {
  it("lists the text channels of the bot's servers, with their server's name", async () => {
    const w = await createWorld(app, { name: 'channel bot' }, { name: 'Alpha guild' });
    await createTestChannel(app, w.guildId, { name: 'voice', type: 2 });
    await createTestChannel(app, w.guildId, { name: 'group', is_category: true });
    const second = await createTestChannel(app, w.guildId, { name: 'second' });
    // A server the bot has not joined is not listed.
    const foreign = await createTestGuild(app, { name: 'Foreign' });
    await createTestChannel(app, foreign.id, { name: 'foreign text' });
    const s = await signIn(app, w.bot.token, 'bot');
    const r = await as<{ items: Array<Record<string, unknown>> }>(s, 'GET', '/admin/api/template/channels');
    expect(r.status).toBe(200);
    const names = r.data.items.map((c) => c.name);
    expect(names).toContain('test channel');
    expect(names).toContain('second');
    expect(names).not.toContain('voice');
    expect(names).not.toContain('group');
    expect(names).not.toContain('foreign text');
    expect(r.data.items.find((c) => c.id === second.id)).toEqual({
      id: second.id,
      name: 'second',
      type: 1,
      guild_id: w.guildId,
      guild_name: 'Alpha guild',
    });
    const byOperator = await op<{ items: unknown[] }>(
      'GET',
      `/admin/api/template/channels?bot_id=${w.bot.id}`,
    );
    expect(byOperator.data.items).toEqual(r.data.items);
  });
});

describe('usage', () => {
  it('names the pipes bound to the template and counts its messages not yet sent', async () => {
    const w = await createWorld(app, { name: 'usage bot' });
    const t = await make(w, { content: 'n={{ data.n }}' });
    const other = await make(w, { content: 'other' });
    const p1 = await createPipe(app, w, { title: 'first pipe', template_id: t.id });
    const p2 = await createPipe(app, w, { title: 'second pipe', template_id: t.id });
    const p3 = await createPipe(app, w, { title: 'other pipe', template_id: other.id });
    await createPipe(app, w, { title: 'plain pipe' });
    const usage = () =>
      op<{ pipes: unknown[]; pending: number; pending_capped: boolean }>(
        'GET',
        `/admin/api/template/usage?id=${t.id}`,
      );
    expect((await usage()).data).toEqual({
      pipes: [
        { id: p1.id, title: 'first pipe' },
        { id: p2.id, title: 'second pipe' },
      ].sort((x, y) => x.id.localeCompare(y.id)),
      pending: 0,
      pending_capped: false,
    });
    // No worker runs in this file: what is sent stays queued.
    for (const n of [1, 2, 3]) await sendPipe(app, p1.token, { n });
    await sendPipe(app, p2.token, { n: 4 });
    await sendPipe(app, p3.token, { n: 5 });
    expect((await usage()).data).toMatchObject({ pending: 4, pending_capped: false });
    const o = await op<{ pending: number }>('GET', `/admin/api/template/usage?id=${other.id}`);
    expect(o.data.pending).toBe(1);
    // A put-off (delayed) message counts too.
    await enqueueDirect(app, w, p1.id, { template_id: t.id, input: '{}' }, { delay: 60_000 });
    expect((await usage()).data.pending).toBe(5);
    // The scan is bounded: past its cap the count says so.
    const capped = await app.res.pipeRuntime.messages.countUnfinishedWithTemplate(t.id, 2);
    expect(capped.capped).toBe(true);
    expect(capped.count).toBeLessThanOrEqual(2);
    const s = await signIn(app, w.bot.token, 'bot');
    expect((await as(s, 'GET', `/admin/api/template/usage?id=${t.id}`)).data).toMatchObject({ pending: 5 });
  });
});

describe('review', () => {
  /** A new template brought to `status` by the review's own moves. */
  async function inStatus(status: number): Promise<Tpl> {
    const t = await make(a, { title: `in ${status}` });
    if (status === 0) return t;
    await submit(t.id);
    if (status === 2) await review(t.id, 'approve');
    if (status === 3) await review(t.id, 'reject');
    const now = await view(t.id);
    expect(now.status).toBe(status);
    return now;
  }

  const table: Array<[string, number, number | 'refused']> = [
    ['submit', 0, 1],
    ['submit', 1, 'refused'],
    ['submit', 2, 'refused'],
    ['submit', 3, 1],
    ['approve', 0, 'refused'],
    ['approve', 1, 2],
    ['approve', 2, 'refused'],
    ['approve', 3, 'refused'],
    ['reject', 0, 'refused'],
    ['reject', 1, 3],
    ['reject', 2, 'refused'],
    ['reject', 3, 'refused'],
  ];
  it('a verdict names the version the reviewer read: one on text changed since is refused (409)', async () => {
    const t = await inStatus(0);
    const read = (await submit(t.id)).data.model;
    // Rejected, edited and submitted again while a reviewer's page still shows `read`.
    await review(t.id, 'reject');
    await op('POST', '/admin/api/template/update', { id: t.id, content: 'changed {{ data.x }}' });
    const again = (await submit(t.id)).data.model;
    const stale = await review(t.id, 'approve', { version: read.version });
    expect([stale.status, stale.code]).toEqual([409, 40900]);
    expect(await view(t.id)).toMatchObject({ status: 1, version: again.version });
    const fresh = await review(t.id, 'approve', { version: again.version });
    expect([fresh.status, fresh.data.model.status]).toEqual([200, 2]);
    const staleBan = await review(t.id, 'ban', { version: again.version });
    expect([staleBan.status, staleBan.code]).toEqual([409, 40900]);
  });

  it.each(table)('%s from status %i: %s', async (action, from, to) => {
    const t = await inStatus(from);
    const r = action === 'submit' ? await submit(t.id) : await review(t.id, action);
    if (to === 'refused') {
      expect([r.status, r.code, r.data]).toEqual([400, 40022, { action, status: from }]);
      expect(await view(t.id)).toMatchObject({ status: from, version: t.version });
    } else {
      expect([r.status, r.data.model.status, r.data.model.version]).toEqual([200, to, t.version + 1]);
    }
  });

  it('approval costs APPROVED_TEMPLATE_CONSUMPTION (0.5) unless the operator names another; reject costs 1', async () => {
    expect(app.config.approvedTemplateConsumption).toBe(0.5);
    const t = await inStatus(1);
    expect((await review(t.id, 'approve')).data.model).toMatchObject({ status: 2, consumption: 0.5 });
    const u = await inStatus(1);
    expect((await review(u.id, 'approve', { consumption: 0.25 })).data.model.consumption).toBe(0.25);
    for (const consumption of [0, 1.5, -1]) {
      const v = await inStatus(1);
      const r = await review(v.id, 'approve', { consumption });
      expect([r.status, r.code, r.data]).toEqual([400, 40000, { field: 'consumption' }]);
      expect((await view(v.id)).status).toBe(1);
    }
    const w = await inStatus(1);
    expect((await review(w.id, 'reject')).data.model).toMatchObject({ status: 3, consumption: 1 });
    const x = await inStatus(1);
    const r = await review(x.id, 'reject', { consumption: 0.5 });
    expect([r.status, r.data]).toEqual([400, { field: 'consumption' }]);
    const bad = await review(x.id, 'promote');
    expect([bad.status, bad.code]).toEqual([400, 40000]);
  });

  it('in review the template cannot be modified (403 40301), by a bot session or an operator', async () => {
    const t = await inStatus(1);
    for (const r of [
      await as(sessionA, 'POST', '/admin/api/template/update', { id: t.id, title: 'changed' }),
      await op('POST', '/admin/api/template/update', { id: t.id, content: 'changed' }),
    ]) {
      expect([r.status, r.code]).toEqual([403, 40301]);
    }
    expect(await view(t.id)).toMatchObject({ title: 'in 1', status: 1, version: t.version });
  });

  it('an approved template whose content or format changes goes back to not reviewed, at a normal cost', async () => {
    for (const change of [
      { content: 'changed {{ data.x }}' },
      { msgtype: 3, content: '- type: card\n  modules: []' },
    ]) {
      const t = await inStatus(2);
      expect(t.consumption).toBe(0.5);
      const r = await as<Saved>(sessionA, 'POST', '/admin/api/template/update', { id: t.id, ...change });
      expect(r.data.model).toMatchObject({ status: 0, consumption: 1 });
    }
    // A title or test field change keeps the approval: what is sent did not change.
    const kept = await inStatus(2);
    const r = await as<Saved>(sessionA, 'POST', '/admin/api/template/update', {
      id: kept.id,
      title: 'renamed',
      test_data: '{"x": 1}',
    });
    expect(r.data.model).toMatchObject({ status: 2, consumption: 0.5, title: 'renamed' });
    // A rejected one changed goes back to not reviewed too, and may be submitted again.
    const rejected = await inStatus(3);
    const again = await op<Saved>('POST', '/admin/api/template/update', {
      id: rejected.id,
      content: 'fixed',
    });
    expect(again.data.model.status).toBe(0);
    expect((await submit(rejected.id)).data.model.status).toBe(1);
  });

  it('ban and unban leave the review state; a banned template renders and test-sends no more (40021)', async () => {
    const t = await inStatus(2);
    const banned = await review(t.id, 'ban');
    expect(banned.data.model).toMatchObject({ status: 2, banned: true, consumption: 0.5 });
    for (const [path, json] of [
      ['/admin/api/template/render', { id: t.id }],
      ['/admin/api/template/send-test', { id: t.id, channel_id: a.channelId }],
    ] as const) {
      const r = await as(sessionA, 'POST', path, json);
      expect([r.status, r.code, r.data]).toEqual([400, 40021, { id: t.id, reason: 'banned' }]);
    }
    // Banned, it still shows (filterable) and may be reviewed on.
    expect((await as(sessionA, 'GET', `/admin/api/template/view?id=${t.id}`)).data).toMatchObject({
      template: { banned: true },
    });
    const unbanned = await review(t.id, 'unban');
    expect(unbanned.data.model).toMatchObject({ status: 2, banned: false });
    expect((await as(sessionA, 'POST', '/admin/api/template/render', { id: t.id })).status).toBe(200);
  });

  it('a bot session may submit its own template, not review it (403)', async () => {
    const t = await make(a, { title: 'self review' });
    const s = await as<{ model: Tpl }>(sessionA, 'POST', '/admin/api/template/submit', { id: t.id });
    expect([s.status, s.data.model.status]).toEqual([200, 1]);
    const r = await as(sessionA, 'POST', '/admin/api/template/review', { id: t.id, action: 'approve' });
    expect([r.status, r.code]).toEqual([403, 40300]);
    expect((await view(t.id)).status).toBe(1);
  });

  it('a bot submits through /api/v3/template/submit with its token', async () => {
    const t = await make(b, { title: 'v3 submit' });
    const r = await app.request<{ model: Tpl }>('POST', '/api/v3/template/submit', {
      bot: b.bot.token,
      json: { id: t.id },
    });
    expect([r.status, r.body.data.model.status]).toEqual([200, 1]);
    expect(r.body.data.model).not.toHaveProperty('bot_id');
    expect(r.headers.get('x-rate-limit-bucket')).toBe('template/submit');
    const again = await app.request('POST', '/api/v3/template/submit', {
      bot: b.bot.token,
      json: { id: t.id },
    });
    expect([again.status, again.body.code]).toEqual([400, 40022]);
    const notMine = await app.request('POST', '/api/v3/template/submit', {
      bot: a.bot.token,
      json: { id: t.id },
    });
    expect([notMine.status, notMine.body.code]).toEqual([404, 40401]);
  });
});

describe('send-pipemsg `type` with a template', () => {
  const send = (token: string, query: string, json: unknown = { t: 'x' }) =>
    app.request('POST', `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}${query}`, {
      json,
    });

  it("refuses a type that disagrees with the template's format (400 40023) before queuing", async () => {
    const card = await make(a, { msgtype: 3, content: '- type: card\n  modules: []' });
    const kmd = await make(a, { msgtype: 1, content: 'hi' });
    const cardPipe = await createPipe(app, a, { template_id: card.id });
    const kmdPipe = await createPipe(app, a, { template_id: kmd.id });
    const before = await app.res.pipeRuntime.queue.count();
    const wrong = await send(cardPipe.token, '&type=9');
    expect([wrong.status, wrong.body.code, wrong.body.data]).toEqual([
      400,
      40023,
      { field: 'type', type: 9, template_id: card.id, expected: 10 },
    ]);
    expect(wrong.body.message).toContain('type=9');
    const wrongKmd = await send(kmdPipe.token, '&type=10');
    expect([wrongKmd.status, wrongKmd.body.code]).toEqual([400, 40023]);
    expect(await app.res.pipeRuntime.queue.count()).toBe(before);
    // Equal or absent is accepted.
    for (const [token, query] of [
      [cardPipe.token, '&type=10'],
      [cardPipe.token, ''],
      [kmdPipe.token, '&type=9'],
    ] as const) {
      expect((await send(token, query)).status).toBe(200);
    }
    // A format change applies at once, in this process and (through the change feed) in another.
    const other = await startTestApp('admin_template_studio_b', {}, { sharedWith: app });
    try {
      const sendVia = (x: TestApp, query: string) =>
        x.request(
          'POST',
          `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(cardPipe.token)}${query}`,
          {
            json: { t: 'x' },
          },
        );
      expect((await sendVia(other, '&type=10')).status).toBe(200);
      const changed = await op('POST', '/admin/api/template/update', {
        id: card.id,
        msgtype: 1,
        content: 'text',
      });
      expect(changed.status).toBe(200);
      expect((await send(cardPipe.token, '&type=10')).status).toBe(400);
      expect((await send(cardPipe.token, '&type=9')).status).toBe(200);
      await expect.poll(async () => (await sendVia(other, '&type=10')).status).toBe(400);
      expect((await sendVia(other, '&type=9')).status).toBe(200);
    } finally {
      await other.close();
    }
    // Without a template `type` says what the content is, as before.
    const plain = await createPipe(app, a);
    expect((await send(plain.token, '&type=10', { content: '[]' })).status).toBe(200);
  });
});
