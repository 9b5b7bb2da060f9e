import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel, createGuild, upsertUser } from '../../src/domain/directory/index.js';
import { banTemplate } from '../../src/domain/templates/index.js';
import { MAX_MESSAGE_LENGTH } from '../../src/render/index.js';
import type { BotRecord } from '../../src/store/index.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

interface Rendered {
  type: number;
  content: string;
}
interface Saved {
  model: { id: string; status: number; test_data: string };
  warnings: Array<Record<string, unknown>>;
}

let app: TestApp;
let token: string;
let bot: BotRecord;

beforeAll(async () => {
  app = await startTestApp('templates-render');
  const b = await createTestBot(app, { name: 'Herald Bot' });
  token = b.token;
  bot = (await app.res.store.bots.get(b.id))!;
});
afterAll(() => app?.close());

const render = (json: unknown, t = token) =>
  app.request<Rendered>('POST', '/api/v3/template/render', { bot: t, json });
const create = (json: Record<string, unknown>, t = token) =>
  app.request<Saved>('POST', '/api/v3/template/create', { bot: t, json: { title: 'T', ...json } });
const update = (json: Record<string, unknown>) =>
  app.request<Saved>('POST', '/api/v3/template/update', { bot: token, json });

/** One card with a kmarkdown section, in the three card formats (docs/cards.md). */
const CARD_JSON = `[{"type": "card", "theme": "info", "modules": [
  {"type": "section", "text": {"type": "kmarkdown", "content": "**{{ data.name|json_escape }}** says hi"}}
]}]`;
const CARD_YAML = `- type: card
  theme: info
  modules:
    - type: section
      text:
        type: kmarkdown
        content: "**{{ data.name|yaml_escape }}** says hi"`;
const CARD_XML = `<card theme="info"><section><text type="kmarkdown">**{{ data.name }}** says hi</text></section></card>`;
const EXPECTED_CARD = [
  {
    type: 'card',
    theme: 'info',
    modules: [{ type: 'section', text: { type: 'kmarkdown', content: '**Ann "A"** says hi' } }],
  },
];

describe('POST /api/v3/template/render: kmd and cards', () => {
  it('renders inline kmd content (msgtype default 1) to a type 9 message', async () => {
    const r = await render({
      content: '**{{ data.name }}** pushed {{ data.n + 1 }}',
      data: { name: 'Ann', n: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 0, message: '操作成功', data: { type: 9, content: '**Ann** pushed 2' } });
  });

  it('takes data as JSON text too', async () => {
    const r = await render({ content: '{{ data.name }}', data: '{"name":"Bo"}' });
    expect(r.body.data).toEqual({ type: 9, content: 'Bo' });
  });

  it('refuses data text that is not JSON, naming the field', async () => {
    const r = await render({ content: '{{ data }}', data: 'not json' });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('参数错误：data：必须是 JSON 文本');
  });

  it.each([
    [2, CARD_JSON],
    [3, CARD_YAML],
    [4, CARD_XML],
  ])('renders a msgtype %i card template to the same type 10 card JSON', async (msgtype, content) => {
    const r = await render({ content, msgtype, data: { name: 'Ann "A"' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.type).toBe(10);
    expect(JSON.parse(r.body.data.content)).toEqual(EXPECTED_CARD);
  });

  it('renders a stored template by id with its test_data, or with the data given', async () => {
    const id = (await create({ content: CARD_YAML, msgtype: 3, test_data: '{"name":"Ann \\"A\\""}' })).body
      .data.model.id;
    const byTest = await render({ id });
    expect(byTest.status, byTest.text).toBe(200);
    expect(JSON.parse(byTest.body.data.content)).toEqual(EXPECTED_CARD);
    const given = await render({ id, data: { name: 'Zed' } });
    expect(JSON.parse(given.body.data.content)[0].modules[0].text.content).toBe('**Zed** says hi');
  });

  it('renders with {} when there is neither data nor test_data', async () => {
    const r = await render({ content: '[{{ data|length }}]' });
    expect(r.body.data).toEqual({ type: 9, content: '[0]' });
  });
});

describe('a GitLab push card', () => {
  // The template of platform-facts.md: who pushed how many commits, then per commit a divider
  // and a kmarkdown section, with a comma after every commit but the last.
  const PUSH_TEMPLATE = `[{"type": "card", "theme": "secondary", "size": "lg", "modules": [
  {"type": "section", "text": {"type": "kmarkdown", "content": "**{{ data.user_name|json_escape }}** pushed {{ data.total_commits_count }} commits to [{{ data.project.name|json_escape }}]({{ data.project.web_url }})"}},
  {% for commit in data.commits %}
  {"type": "divider"},
  {"type": "section", "text": {"type": "kmarkdown", "content": "**{{ commit.author.name|json_escape }}** [{{ commit.message|json_escape }}]({{ commit.url }})\\n{{ commit.timestamp }}"}}{% if commit.id != (data.commits|last).id %},{% endif %}
  {% endfor %}
]}]`;
  const commits = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `c${i}`,
      message: i === 0 ? 'Fix "quoted" bug\nsecond line' : `Commit ${i} with \\ backslash`,
      url: `https://git.example/herald/-/commit/c${i}`,
      timestamp: '2024-05-01T10:00:00Z',
      author: { name: i % 2 ? 'Bob' : 'Alice' },
    }));
  const push = (n: number) => ({
    object_kind: 'push',
    user_name: 'Alice',
    total_commits_count: n,
    project: { name: 'herald', web_url: 'https://git.example/herald' },
    commits: commits(n),
  });

  it('previews 20 commits as one valid card: 1 + 2 x 20 modules, text escaped', async () => {
    const r = await render({ content: PUSH_TEMPLATE, msgtype: 2, data: push(20) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.type).toBe(10);
    const cards = JSON.parse(r.body.data.content);
    expect(cards).toHaveLength(1);
    expect(cards[0].modules).toHaveLength(41);
    expect(cards[0].modules[0].text.content).toBe(
      '**Alice** pushed 20 commits to [herald](https://git.example/herald)',
    );
    expect(cards[0].modules[2].text.content).toBe(
      '**Alice** [Fix "quoted" bug\nsecond line](https://git.example/herald/-/commit/c0)\n2024-05-01T10:00:00Z',
    );
  });

  it('25 commits break the 50-module limit: the precise card error', async () => {
    const r = await render({ content: PUSH_TEMPLATE, msgtype: 2, data: push(25) });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40014);
    expect(r.body.data).toMatchObject({ path: expect.stringContaining('card[0].modules') });
  });

  const fixtures = new URL('../fixtures/gitlab/', import.meta.url);
  it('previews the shared fixture push-card.json.twig with push-event.json (20 commits)', async () => {
    const content = readFileSync(new URL('push-card.json.twig', fixtures), 'utf8');
    const data = JSON.parse(readFileSync(new URL('push-event.json', fixtures), 'utf8'));
    const saved = await create({ content, msgtype: 2, test_data: JSON.stringify(data) });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.data.warnings).toEqual([]);
    const r = await render({ id: saved.body.data.model.id });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.type).toBe(10);
    const cards = JSON.parse(r.body.data.content);
    expect(cards[0].type).toBe('card');
    // one header section, then a divider and a section per commit
    expect(cards[0].modules.length).toBe(1 + 2 * data.commits.length);
  });
});

describe('render errors are precise', () => {
  it('a compile error: 40010 with line, column, excerpt', async () => {
    const r = await render({ content: 'ok\n{{ data.x | }}' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40010);
    expect(r.body.data).toMatchObject({ line: 2, column: expect.any(Number), excerpt: expect.any(String) });
  });

  it('a render error: 40011 with its position', async () => {
    const r = await render({ content: 'a\nb {{ 1 / data.zero }}', data: { zero: 0 } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40011);
    expect(r.body.data).toMatchObject({ line: 2 });
  });

  it('a card that does not parse: 40013 with the format and position', async () => {
    const r = await render({ content: '[{"type": "card", "modules": [}]', msgtype: 2 });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40013);
    expect(r.body.data).toMatchObject({ format: 'json', line: 1 });
  });

  it('an invalid card: 40014 with the path', async () => {
    const modules = ['header', 'section', 'image-group', 'container', 'action-group', 'context'];
    modules.push('divider', 'file', 'audio', 'video', 'countdown', 'invite');
    const json = { content: '- type: card\n  modules:\n    - type: nope\n', msgtype: 3 };
    const r = await render(json);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40014);
    expect(r.body.data).toMatchObject({
      path: 'card[0].modules[0].type',
      line: 3,
      column: 7,
      excerpt: '    - type: nope',
    });
    expect(r.body.message).toBe(
      `卡片消息不合法：第 3 行第 7 列，card[0].modules[0].type：必须是模块类型（${modules.join('、')}），不能是 "nope"`,
    );
    // data.rule is the English rule whatever the language; the message is the reader's.
    const rule = `must be a module type (${modules.join(', ')}), not "nope"`;
    expect(r.body.data).toMatchObject({ rule });
    const inEnglish = await app.request<Rendered>('POST', '/api/v3/template/render', {
      bot: token,
      headers: { 'Accept-Language': 'en-US' },
      json,
    });
    expect(inEnglish.body.message).toBe(
      `Card message is invalid: line 3, column 7: card[0].modules[0].type: ${rule}`,
    );
    expect(inEnglish.body.data).toMatchObject({ rule });
  });

  it(`a kmd message over ${MAX_MESSAGE_LENGTH} characters: 40015`, async () => {
    const plain = await render({ content: '{% for i in 1..data.n %}字{% endfor %}', data: { n: 8001 } });
    expect(plain.status).toBe(400);
    expect(plain.body).toMatchObject({ code: 40015, data: { length: 8001, max: MAX_MESSAGE_LENGTH } });
  });

  it('is bounded: a runaway loop ends with 40012', async () => {
    const r = await render({
      content:
        '{% for i in 1..1000 %}{% for j in 1..1000 %}{% for k in 1..1000 %}{% endfor %}{% endfor %}{% endfor %}',
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40012);
  });

  it('names id when neither id nor content is given; rejects bad msgtype and long ids', async () => {
    expect((await render({ data: {} })).body.message).toBe('参数错误：id：为必填项（或提供 content）');
    expect((await render({ content: 'x', msgtype: 5 })).body.data).toEqual({ field: 'msgtype' });
    expect((await render({ id: 'x'.repeat(17) })).body.data).toEqual({ field: 'id' });
  });

  it('an unknown, deleted or foreign id is "not found"; a banned one says banned', async () => {
    expect((await render({ id: 'AAAAAAAAAAAAAAAA' })).status).toBe(404);
    const other = await createTestBot(app);
    const foreign = (await create({ content: 'x' }, other.token)).body.data.model.id;
    expect((await render({ id: foreign })).body).toMatchObject({ code: 40401, data: { field: 'id' } });
    const gone = (await create({ content: 'x' })).body.data.model.id;
    await app.request('POST', '/api/v3/template/delete', { bot: token, json: { id: gone } });
    const deleted = await render({ id: gone });
    expect(deleted.status).toBe(400);
    expect(deleted.body.code).toBe(40020);
    const banned = (await create({ content: 'x' })).body.data.model.id;
    await banTemplate(app.res, bot, banned);
    const b = await render({ id: banned });
    expect(b.body).toMatchObject({ code: 40021, data: { id: banned, reason: 'banned' } });
  });
});

describe('save-time checks with test_data: warnings, never a refusal', () => {
  it('a card template whose test render is invalid is saved, with the problem as a warning', async () => {
    const r = await create({
      content: '[{"type": "card", "modules": [{"type": "{{ data.kind }}"}]}]',
      msgtype: 2,
      test_data: '{"kind": "nope"}',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.model.id).toBeTruthy();
    expect(r.body.data.warnings).toEqual([
      expect.objectContaining({ code: 40014, path: 'card[0].modules[0].type', message: expect.any(String) }),
    ]);
  });

  it('warns in the caller language', async () => {
    const r = await app.request<Saved>('POST', '/api/v3/template/create', {
      bot: token,
      headers: { 'Accept-Language': 'en-US' },
      json: { title: 'T', content: '[{{ data.x }}', msgtype: 2, test_data: '{"x": 1}' },
    });
    expect(r.body.data.warnings[0]).toMatchObject({ code: 40013, format: 'json' });
    expect(String(r.body.data.warnings[0]!.message)).toMatch(/^Card message cannot be parsed \(json\)/);
  });

  it('no warning when the test render is fine; update re-checks with the new data', async () => {
    const ok = await create({ content: CARD_JSON, msgtype: 2, test_data: '{"name":"Ann"}' });
    expect(ok.body.data.warnings).toEqual([]);
    const id = ok.body.data.model.id;
    const bad = await update({
      id,
      content: '[{"type": "card", "modules": {{ data.m }}}]',
      test_data: '{"m": 1}',
    });
    expect(bad.status).toBe(200);
    expect(bad.body.data.warnings).toEqual([expect.objectContaining({ code: 40014 })]);
  });

  it('a render error in the test render is a warning with its position', async () => {
    const r = await create({ content: 'x\n{{ 1 / data.z }}', test_data: '{"z": 0}' });
    expect(r.status).toBe(200);
    expect(r.body.data.warnings).toEqual([expect.objectContaining({ code: 40011, line: 2 })]);
  });

  it('without test_data a card template is not rendered at save time', async () => {
    const r = await create({
      content: '[{"type": "card", "modules": [{"type": "{{ data.kind }}"}]}]',
      msgtype: 2,
    });
    expect(r.body.data.warnings).toEqual([]);
  });
});

describe('platform context from channel_id / test_channel', () => {
  let channelId: string;
  let foreignChannelId: string;
  const CONTENT =
    '{{ PLATFORM.getChannel().name }}|{{ PLATFORM.getGuild().name }}|{{ PLATFORM.getSender().username }}|{{ PLATFORM.getSender().bot ? "bot" : "user" }}';

  beforeAll(async () => {
    const guild = await createGuild(app.res, { name: 'Guild One', user_id: bot.user_id });
    channelId = (await createChannel(app.res, { guild_id: guild.id, name: 'general' })).id;
    const stranger = await upsertUser(app.res, `9${Date.now()}`, { username: 'stranger' });
    const other = await createGuild(app.res, { name: 'Other Guild', user_id: stranger.id });
    foreignChannelId = (await createChannel(app.res, { guild_id: other.id, name: 'secret' })).id;
  });

  it('resolves the channel, its guild and the bot as sender', async () => {
    const r = await render({ content: CONTENT, channel_id: channelId });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.content).toBe('general|Guild One|Herald Bot|bot');
  });

  it("uses the template's test_channel by default", async () => {
    const id = (await create({ content: CONTENT, test_channel: channelId })).body.data.model.id;
    expect((await render({ id })).body.data.content).toBe('general|Guild One|Herald Bot|bot');
  });

  it('without a channel, getChannel() and getGuild() are null', async () => {
    const r = await render({ content: '{{ PLATFORM.getChannel() is null ? "none" : "some" }}' });
    expect(r.body.data.content).toBe('none');
  });

  it('getGuild(id) answers only for guilds the bot has joined', async () => {
    const r = await render({
      content: "{{ PLATFORM.getGuild(data.g).name ?? 'no' }}",
      data: { g: (await app.res.store.channels.get(channelId))!.guild_id },
    });
    expect(r.body.data.content).toBe('Guild One');
  });

  it('an unknown channel, or one outside the bot guilds, is "channel not found"', async () => {
    for (const id of ['404404', foreignChannelId]) {
      const r = await render({ content: 'x', channel_id: id });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ code: 40401, message: '频道不存在', data: { field: 'channel_id' } });
    }
  });

  it('a bad test_channel shows up as a save-time warning', async () => {
    const r = await create({ content: 'x', test_channel: foreignChannelId, test_data: '{}' });
    expect(r.status).toBe(200);
    expect(r.body.data.warnings).toEqual([expect.objectContaining({ code: 40401, field: 'test_channel' })]);
  });
});
