import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listGallery } from '../../src/domain/gallery/index.js';
import type { Capture } from '../../src/domain/pipes/captures.js';
import { PIPE_PRESET_IDS, PIPE_PRESETS, type PipePresetId } from '../../src/domain/pipes/routing/presets.js';
import { inputText } from '../../src/queue/job-input.js';
import { PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { senderRequest } from '../helpers/sender-requests.js';
import { createTestBot, startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/test-app.js';

/** Routing by event through send-pipemsg and the back office, on the real Redis (BullMQ) and store. */
let app: TestApp;
let queue: Queue<PipeJob>;
let bot: { id: string; token: string; bot: Record<string, unknown> };
let channelId: string;

const gallery = await listGallery();

interface Created {
  pipe: Record<string, unknown> & {
    id: string;
    routes: Record<string, string | null>;
    event_source: unknown;
    template_id: string | null;
  };
  access_token: string;
  url: string;
  templates?: Array<{ id: string; title: string; gallery_id: string }>;
}
type Answer = {
  msg_id?: string;
  skipped?: boolean;
  reason?: string;
  event?: string | null;
};

const createPipe = (body: Record<string, unknown>) =>
  app.request<Created>('POST', '/admin/api/pipe/create', {
    admin: true,
    // Presets' own signatures are tested in pipe-signatures.test.ts; here senders send unsigned.
    json: {
      bot_id: bot.id,
      title: 'hooks',
      channel_id: channelId,
      ...(body.preset !== undefined ? { signature: 'none' } : {}),
      ...body,
    },
    headers: { 'Accept-Language': 'en-US' },
  });

async function created(body: Record<string, unknown>): Promise<Created> {
  const r = await createPipe(body);
  if (r.status !== 200) throw new Error(`pipe create failed: ${r.text}`);
  return r.body.data;
}

const sendPath = (token: string, query = '') =>
  `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}${query}`;

const sendRaw = (token: string, body: string, headers: Record<string, string>, query = '') =>
  app.request<Answer>('POST', sendPath(token, query), { raw: body, headers });

async function createTemplate(content: string, msgtype = 1): Promise<string> {
  const r = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
    bot: bot.token,
    json: { title: 'tpl', content, msgtype },
  });
  if (r.status !== 200) throw new Error(`template create failed: ${r.text}`);
  return r.body.data.model.id;
}

const job = async (msgId: string) => (await queue.getJob(msgId))?.data;
const jobCount = async () => {
  const c = await queue.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed');
  return Object.values(c).reduce((a, b) => a + b, 0);
};
const botTemplateIds = async () =>
  (
    await app.res.store.templates.list(bot.bot as never, {
      page: 1,
      pageSize: 50,
      sort: { field: 'id', dir: 1 },
    })
  ).items.map((t) => t.id);

const presetPipes = new Map<PipePresetId, Created>();

beforeAll(async () => {
  app = await startTestApp('send_pipemsg_routing');
  const url = new URL(app.config.redisUrl);
  queue = new Queue<PipeJob>(PIPE_QUEUE, {
    connection: { host: url.hostname, port: Number(url.port || 6379) },
    prefix: app.config.redisPrefix,
  });
  bot = await createTestBot(app);
  const guild = await createTestGuild(app);
  channelId = (await createTestChannel(app, guild.id)).id;
  await addTestMember(app, guild.id, bot.bot.user_id as string);
  for (const preset of PIPE_PRESET_IDS) {
    presetPipes.set(
      preset,
      await created({ title: preset, preset, rate_limit: { capacity: 1000, per_second: 1000 } }),
    );
  }
});
afterAll(async () => {
  await queue?.close();
  await app?.close();
});

describe('presets', () => {
  it("make the bot's templates from the gallery and route the sender's events to them in one step", async () => {
    for (const preset of PIPE_PRESET_IDS) {
      const { pipe, templates, url } = presetPipes.get(preset)!;
      const def = PIPE_PRESETS[preset];
      expect(url).toContain('/api/v3/message/send-pipemsg?access_token=hrp_');
      expect(pipe.preset).toBe(preset);
      expect(pipe.event_source).toEqual(def.event_source);
      expect(pipe.template_id).toBeNull();
      // One template per gallery template, routed from each of its events; ignored events null.
      const byGallery = new Map(templates!.map((t) => [t.gallery_id, t.id]));
      expect(byGallery.size).toBe(templates!.length);
      const want: Record<string, string | null> = {};
      for (const [event, galleryId] of Object.entries(def.routes)) want[event] = byGallery.get(galleryId)!;
      for (const event of def.ignore) want[event] = null;
      expect(pipe.routes).toEqual(want);
      for (const t of templates!) {
        const stored = await app.res.store.templates.get(bot.bot as never, t.id);
        const source = gallery.find((g) => g.id === t.gallery_id)!;
        expect(stored?.content, t.gallery_id).toBe(source.content);
        expect(stored?.msgtype).toBe(source.msgtype);
        expect(stored?.test_data).toBe(source.samples[0]!.data);
        expect(t.title).toBe(source.title['en-US']);
      }
    }
    // The pipe as the back office reads it back.
    const github = presetPipes.get('github')!;
    const view = await app.request<{ pipe: Created['pipe'] }>(
      'GET',
      `/admin/api/pipe/view?id=${github.pipe.id}`,
      {
        admin: true,
      },
    );
    expect(view.body.data.pipe.routes).toEqual(github.pipe.routes);
    expect(view.body.data.pipe.event_source).toEqual({ header: 'x-github-event' });
  });

  it("route every gallery sample, sent with the sender's real headers, to the template made from its gallery template", async () => {
    let sent = 0;
    for (const template of gallery) {
      for (const sample of template.samples) {
        const req = senderRequest(template, sample);
        if (req === null) continue;
        const p = presetPipes.get(req.preset)!;
        const r = await sendRaw(p.access_token, req.body, {
          ...req.headers,
          'X-Hub-Signature-256': 'sha256=0000',
        });
        expect(r.status, `${template.id}/${sample.id}: ${r.text}`).toBe(200);
        expect(r.body.data.skipped).toBeUndefined();
        const data = await job(r.body.data.msg_id!);
        const templateId = p.templates!.find((t) => t.gallery_id === template.id)!.id;
        expect(data?.template_id, `${template.id}/${sample.id}`).toBe(templateId);
        expect(data?.event).toBe(req.event);
        // The allow-listed headers travel with the job; the signature never does.
        expect(data?.headers?.['user-agent']).toBe(req.headers['User-Agent']);
        expect(data?.headers?.['x-hub-signature-256']).toBeUndefined();
        expect(inputText(data!.input, data!.input_encoding)).toBe(req.body);
        sent++;
      }
    }
    expect(sent).toBeGreaterThanOrEqual(25);
  });

  it('are refused with event_source or routes given too, and make nothing when the bot or channel is wrong', async () => {
    const before = await botTemplateIds();
    const both = await createPipe({ preset: 'github', routes: { push: null } });
    expect(both.status).toBe(400);
    expect(both.body.data).toEqual({ field: 'routes' });
    const unknown = await createPipe({ preset: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.data).toEqual({ field: 'preset' });
    const noChannel = await createPipe({ preset: 'gitlab', channel_id: '999999999' });
    expect(noChannel.status).toBe(400);
    expect(noChannel.body.data).toEqual({ field: 'channel_id' });
    // A default template of another bot: the pipe is refused after the templates were made,
    // and they are deleted again.
    const other = await createTestBot(app, { name: 'other' });
    const foreign = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
      bot: other.token,
      json: { title: 'x', content: 'x' },
    });
    const refused = await createPipe({ preset: 'github', template_id: foreign.body.data.model.id });
    expect(refused.status).toBe(400);
    expect(refused.body.data).toEqual({ field: 'template_id' });
    expect(await botTemplateIds()).toEqual(before);
  });
});

describe('skipped events', () => {
  it("answers GitHub's ping 200 and posts nothing, without taking from the pipe's budget", async () => {
    const { access_token } = await created({
      preset: 'github',
      rate_limit: { capacity: 1, per_second: 0.01 },
    });
    const before = await jobCount();
    const ping = JSON.stringify({ zen: 'Design for failure.', hook_id: 1, hook: { type: 'Repository' } });
    for (let i = 0; i < 3; i++) {
      const r = await sendRaw(access_token, ping, {
        'Content-Type': 'application/json',
        'X-GitHub-Event': 'ping',
      });
      expect(r.status).toBe(200);
      expect(r.body.code).toBe(0);
      expect(r.body.data).toEqual({ skipped: true, reason: 'event_ignored', event: 'ping' });
      expect(r.headers.get('x-rate-limit-remaining')).toBeNull();
    }
    // Events without a template, and a request naming none.
    const comment = await sendRaw(access_token, '{"action":"created"}', {
      'Content-Type': 'application/json',
      'X-GitHub-Event': 'issue_comment',
    });
    expect(comment.body.data).toEqual({ skipped: true, reason: 'no_template', event: 'issue_comment' });
    const none = await sendRaw(access_token, '{}', { 'Content-Type': 'application/json' });
    expect(none.body.data).toEqual({ skipped: true, reason: 'no_event', event: null });
    expect(await jobCount()).toBe(before);
    // The budget of 1 is still whole: the push is taken, the next is over it.
    const push = gallery.find((t) => t.id === 'github-push')!.samples[0]!.data;
    const headers = { 'Content-Type': 'application/json', 'X-GitHub-Event': 'push' };
    const first = await sendRaw(access_token, push, headers);
    expect(first.status).toBe(200);
    expect(first.body.data.msg_id).toBeTypeOf('string');
    expect(first.headers.get('x-rate-limit-remaining')).toBe('0');
    const second = await sendRaw(access_token, push, headers);
    expect(second.status).toBe(429);
    // Skipped events still answer once the budget is spent.
    const again = await sendRaw(access_token, ping, {
      'Content-Type': 'application/json',
      'X-GitHub-Event': 'ping',
    });
    expect(again.status).toBe(200);
    expect(again.body.data.skipped).toBe(true);
  });

  it('checks the query before skipping, so that a ping shows a bad URL', async () => {
    const { access_token } = presetPipes.get('github')!;
    const r = await sendRaw(
      access_token,
      '{}',
      { 'Content-Type': 'application/json', 'X-GitHub-Event': 'ping' },
      '&type=11',
    );
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ field: 'type' });
    // and a target_id that names no text channel of the pipe's server (review finding: only its
    // shape was checked before the skip)
    const otherGuild = await createTestGuild(app, { name: 'not the pipe server' });
    const elsewhere = await createTestChannel(app, otherGuild.id, { name: 'elsewhere' });
    for (const target of ['1', elsewhere.id]) {
      const bad = await sendRaw(
        access_token,
        '{}',
        { 'Content-Type': 'application/json', 'X-GitHub-Event': 'ping' },
        `&target_id=${target}`,
      );
      expect([bad.status, bad.body.data]).toEqual([400, { field: 'target_id' }]);
    }
    const own = await sendRaw(
      access_token,
      '{}',
      { 'Content-Type': 'application/json', 'X-GitHub-Event': 'ping' },
      `&target_id=${channelId}`,
    );
    expect([own.status, own.body.data?.skipped]).toEqual([200, true]);
  });

  it('counts them in the metrics, by reason', async () => {
    const text = await fetch(`${app.base}/metrics`, {
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    }).then((r) => r.text());
    expect(text).toMatch(/herald_pipe_events_skipped_total\{reason="event_ignored"\} [1-9]/);
    expect(text).toMatch(/herald_pipe_events_skipped_total\{reason="no_template"\} [1-9]/);
  });
});

describe("GitHub's form-encoded body", () => {
  it('is taken by a routed pipe: the JSON in payload is the data, and the capture', async () => {
    const { access_token, pipe, templates } = presetPipes.get('github')!;
    const push = gallery.find((t) => t.id === 'github-push')!.samples[0]!.data;
    const r = await sendRaw(access_token, `payload=${encodeURIComponent(push)}`, {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-GitHub-Event': 'push',
    });
    expect(r.status, r.text).toBe(200);
    const data = await job(r.body.data.msg_id!);
    expect(inputText(data!.input, data!.input_encoding)).toBe(push);
    expect(data?.template_id).toBe(templates!.find((t) => t.gallery_id === 'github-push')!.id);
    expect(data?.headers?.['content-type']).toBe('application/x-www-form-urlencoded');
    await expect
      .poll(async () => {
        const c = await app.request<{ items: Capture[] }>('GET', `/admin/api/pipe/captures?id=${pipe.id}`, {
          admin: true,
        });
        return c.body.data.items.find((i) => i.id === r.body.data.msg_id)?.body;
      })
      .toBe(push);
  });

  it('is taken by a single-template pipe, and still refused (415) by a pipe without a template', async () => {
    const templateId = await createTemplate('{{ data.ref }}');
    const templated = await created({ template_id: templateId });
    const ok = await sendRaw(templated.access_token, 'payload=%7B%22ref%22%3A%22main%22%7D', {
      'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8',
    });
    expect(ok.status, ok.text).toBe(200);
    expect(inputText((await job(ok.body.data.msg_id!))!.input, 'base64')).toBe('{"ref":"main"}');
    const bad = await sendRaw(templated.access_token, 'ref=main', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.data).toEqual({ field: 'payload' });
    const notJson = await sendRaw(templated.access_token, 'payload=%7Bnope', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe(40001);
    const plain = await created({});
    const refused = await sendRaw(plain.access_token, 'payload=%7B%7D', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    expect(refused.status).toBe(415);
  });
});

describe('pipes without routing', () => {
  it('queue the same job as before: their template, no event, no headers', async () => {
    const templateId = await createTemplate('{{ data.x }}');
    const { access_token, pipe } = await created({ template_id: templateId });
    expect(pipe.event_source).toBeNull();
    expect(pipe.routes).toEqual({});
    expect(pipe.preset).toBeNull();
    const r = await sendRaw(access_token, '{"x":1}', {
      'Content-Type': 'application/json',
      'X-GitHub-Event': 'push',
    });
    const data = await job(r.body.data.msg_id!);
    expect(Object.keys(data!).sort()).toEqual(
      [
        'msg_id',
        'pipe_id',
        'bot_id',
        'channel_id',
        'guild_id',
        'template_id',
        'type',
        'quote',
        'nonce',
        'temp_target_id',
        'input',
        'input_encoding',
        'accepted_at',
      ].sort(),
    );
    expect(data?.template_id).toBe(templateId);
  });
});

describe('a routed pipe with a default template', () => {
  it('renders events without a route with the default, checking `type` against the chosen template', async () => {
    const kmd = await createTemplate('{{ _event }}', 1);
    const card = await createTemplate('[{"type":"card","modules":[]}]', 2);
    const { access_token } = await created({
      template_id: kmd,
      event_source: { body: 'kind' },
      routes: { deploy: card, noise: null },
    });
    const routed = await sendRaw(access_token, '{"kind":"deploy"}', { 'Content-Type': 'application/json' });
    expect((await job(routed.body.data.msg_id!))?.template_id).toBe(card);
    const other = await sendRaw(access_token, '{"kind":"build"}', { 'Content-Type': 'application/json' });
    const otherJob = await job(other.body.data.msg_id!);
    expect(otherJob?.template_id).toBe(kmd);
    expect(otherJob?.event).toBe('build');
    const none = await sendRaw(access_token, '{}', { 'Content-Type': 'application/json' });
    expect((await job(none.body.data.msg_id!))?.event).toBeNull();
    const noise = await sendRaw(access_token, '{"kind":"noise"}', { 'Content-Type': 'application/json' });
    expect(noise.body.data).toEqual({ skipped: true, reason: 'event_ignored', event: 'noise' });
    // type=9 fits the default (KMarkdown) but not the deploy route's card.
    const fits = await sendRaw(
      access_token,
      '{"kind":"build"}',
      { 'Content-Type': 'application/json' },
      '&type=9',
    );
    expect(fits.status).toBe(200);
    const mismatch = await sendRaw(
      access_token,
      '{"kind":"deploy"}',
      { 'Content-Type': 'application/json' },
      '&type=9',
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe(40023);
  });
});

describe('pipemsg-status', () => {
  it('shows the event and the chosen template (null for a message of a pipe without routing)', async () => {
    const { access_token, templates } = presetPipes.get('gitlab')!;
    const sample = gallery.find((t) => t.id === 'gitlab-pipeline')!.samples[0]!;
    const r = await sendRaw(access_token, sample.data, {
      'Content-Type': 'application/json',
      'X-Gitlab-Event': 'Pipeline Hook',
    });
    const status = await app.request<Record<string, unknown>>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${r.body.data.msg_id}`,
      { headers: { Authorization: `Pipe ${access_token}` } },
    );
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({
      status: 'queued',
      event: 'pipeline',
      template_id: templates!.find((t) => t.gallery_id === 'gitlab-pipeline')!.id,
    });
    const plain = await created({});
    const p = await sendRaw(plain.access_token, '{"content":"hi"}', { 'Content-Type': 'application/json' });
    const plainStatus = await app.request<Record<string, unknown>>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${p.body.data.msg_id}`,
      { headers: { Authorization: `Pipe ${plain.access_token}` } },
    );
    expect(plainStatus.body.data).toMatchObject({ event: null, template_id: null });
  });
});

describe('changing the routing', () => {
  it('refuses settings that do not hang together, and another bot’s template in a route', async () => {
    const templateId = await createTemplate('x');
    const noSource = await createPipe({ routes: { push: templateId } });
    expect(noSource.status).toBe(400);
    expect(noSource.body.data).toEqual({ field: 'event_source' });
    const nothing = await createPipe({ event_source: { header: 'X-Event' }, routes: { ping: null } });
    expect(nothing.body.data).toEqual({ field: 'routes' });
    const two = await createPipe({ event_source: { header: 'x', body: 'y' }, template_id: templateId });
    expect(two.body.data).toEqual({ field: 'event_source' });
    const other = await createTestBot(app, { name: 'other2' });
    const foreign = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
      bot: other.token,
      json: { title: 'x', content: 'x' },
    });
    const r = await createPipe({
      event_source: { header: 'x-e' },
      routes: { a: foreign.body.data.model.id },
    });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ field: 'routes' });
  });

  it('takes effect at once, and an update keeps what it does not name', async () => {
    const a = await createTemplate('a');
    const b = await createTemplate('b');
    const { pipe, access_token } = await created({ event_source: { header: 'X-Event' }, routes: { one: a } });
    const headers = { 'Content-Type': 'application/json', 'X-Event': 'one' };
    expect((await job((await sendRaw(access_token, '{}', headers)).body.data.msg_id!))?.template_id).toBe(a);
    const update = (json: Record<string, unknown>) =>
      app.request<{ pipe: Created['pipe'] }>('POST', '/admin/api/pipe/update', {
        admin: true,
        json: { id: pipe.id, ...json },
      });
    const u = await update({ routes: { one: b, two: a } });
    expect(u.status, u.text).toBe(200);
    expect(u.body.data.pipe.event_source).toEqual({ header: 'x-event' });
    expect((await job((await sendRaw(access_token, '{}', headers)).body.data.msg_id!))?.template_id).toBe(b);
    // Clearing the source while routes remain is refused; clearing both turns routing off.
    expect((await update({ event_source: null })).body.data).toEqual({ field: 'event_source' });
    const off = await update({ event_source: null, routes: null, template_id: a });
    expect(off.body.data.pipe).toMatchObject({ event_source: null, routes: {}, template_id: a });
    const plain = await job((await sendRaw(access_token, '{}', headers)).body.data.msg_id!);
    expect(plain?.template_id).toBe(a);
    expect(plain?.event).toBeUndefined();
  });

  it("lists a routed pipe in its templates' usage", async () => {
    const { pipe, templates } = presetPipes.get('sentry')!;
    const r = await app.request<{ pipes: Array<{ id: string }> }>(
      'GET',
      `/admin/api/template/usage?id=${templates![0]!.id}`,
      { admin: true },
    );
    expect(r.body.data.pipes.map((p) => p.id)).toContain(pipe.id);
  });

  it("sends a routed pipe's test message with its first route's template and event", async () => {
    const { pipe, templates } = presetPipes.get('github')!;
    const r = await app.request<{ msg_id: string }>('POST', '/admin/api/pipe/send-test', {
      admin: true,
      json: { id: pipe.id },
    });
    expect(r.status, r.text).toBe(200);
    const data = await job(r.body.data.msg_id);
    expect(data?.event).toBe('push');
    expect(data?.template_id).toBe(templates!.find((t) => t.gallery_id === 'github-push')!.id);
    expect(data?.headers).toEqual({ 'content-type': 'application/json', 'x-github-event': 'push' });
  });
});
