import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON } from '../../src/domain/deliveries/reasons.js';
import { markFailed } from '../../src/domain/deliveries/records.js';
import { inputText } from '../../src/queue/job-input.js';
import { PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { fail } from '../../src/workers/delivery/delivery-failure.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

/** send-pipemsg over HTTP on the real Redis (BullMQ) and store. */
let app: TestApp;
let queue: Queue<PipeJob>;
let bot: { id: string; token: string; bot: Record<string, unknown> };
let guildId: string;
let channelId: string;

const en = { 'Accept-Language': 'en-US' };
const GITLAB_PUSH = readFileSync(new URL('../fixtures/gitlab/push-large.json', import.meta.url), 'utf8');
const PUSH_CARD = readFileSync(new URL('../fixtures/gitlab/push-card.json.twig', import.meta.url), 'utf8');

interface Created {
  pipe: Record<string, unknown> & { id: string };
  access_token: string;
  url: string;
}
interface Accepted {
  msg_id: string;
  msg_timestamp: number;
  nonce: string;
  not_permissions_mention: string[];
}

async function createPipe(body: Record<string, unknown> = {}): Promise<Created> {
  const r = await app.request<Created>('POST', '/admin/api/pipe/create', {
    admin: true,
    json: { bot_id: bot.id, title: 'CI', channel_id: channelId, ...body },
  });
  if (r.status !== 200) throw new Error(`pipe create failed: ${r.text}`);
  return r.body.data;
}

const path = (token: string, query = '') =>
  `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}${query}`;

const send = (token: string, json: unknown, query = '', headers: Record<string, string> = {}) =>
  app.request<Accepted>('POST', path(token, query), { json, headers });

const waitingCount = async () => (await queue.getJobCounts('waiting')).waiting ?? 0;

async function createTemplate(content: string, msgtype = 1): Promise<string> {
  const r = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
    bot: bot.token,
    json: { title: 'tpl', content, msgtype },
  });
  if (r.status !== 200) throw new Error(`template create failed: ${r.text}`);
  return r.body.data.model.id;
}

beforeAll(async () => {
  app = await startTestApp('send_pipemsg', { BODY_LIMIT_BYTES: String(128 * 1024) });
  const url = new URL(app.config.redisUrl);
  queue = new Queue<PipeJob>(PIPE_QUEUE, {
    connection: { host: url.hostname, port: Number(url.port || 6379) },
    prefix: app.config.redisPrefix,
  });
  bot = await createTestBot(app);
  const guild = await createTestGuild(app);
  guildId = guild.id;
  channelId = (await createTestChannel(app, guildId)).id;
  await addTestMember(app, guildId, bot.bot.user_id as string);
});
afterAll(async () => {
  await queue?.close();
  await app?.close();
});

describe('accepting messages', () => {
  it('accepts {"content"} into a plain pipe and stores the job under msg_id', async () => {
    const { pipe, access_token, url } = await createPipe();
    expect(access_token).toMatch(/^hrp_\d+\.[A-Za-z0-9_-]{43}$/);
    expect(url).toBe(`${app.config.publicUrl}/api/v3/message/send-pipemsg?access_token=${access_token}`);
    const r = await send(access_token, { content: 'build **passed**' }, '&nonce=n1');
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    expect(r.body.message).toBe('操作成功');
    const { msg_id, msg_timestamp, nonce, not_permissions_mention } = r.body.data;
    expect(msg_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(typeof msg_timestamp).toBe('number');
    expect(nonce).toBe('n1');
    expect(not_permissions_mention).toEqual([]);
    const job = await queue.getJob(msg_id);
    expect(job?.id).toBe(msg_id);
    expect(job?.data).toEqual({
      msg_id,
      pipe_id: pipe.id,
      bot_id: bot.id,
      channel_id: channelId,
      guild_id: guildId,
      template_id: null,
      type: null,
      quote: null,
      nonce: 'n1',
      temp_target_id: null,
      input: 'build **passed**',
      accepted_at: msg_timestamp,
    });
  });

  it('takes the token from Authorization: Pipe as well', async () => {
    const { access_token } = await createPipe();
    const r = await app.request<Accepted>('POST', '/api/v3/message/send-pipemsg', {
      json: { content: 'via header' },
      headers: { Authorization: `Pipe ${access_token}` },
    });
    expect(r.status).toBe(200);
    const plain = (await queue.getJob(r.body.data.msg_id))?.data;
    expect(plain?.input).toBe('via header');
    expect(plain?.input_encoding).toBeUndefined(); // a plain pipe's content stays text
  });

  it('carries type, quote, temp_target_id and a target_id in the same server', async () => {
    const { access_token } = await createPipe();
    const other = await createTestChannel(app, guildId, { name: 'alerts' });
    const r = await send(
      access_token,
      { content: '[card]' },
      `&type=10&target_id=${other.id}&quote=q-1&temp_target_id=u-9`,
    );
    expect(r.status).toBe(200);
    const job = await queue.getJob(r.body.data.msg_id);
    expect(job?.data).toMatchObject({ channel_id: other.id, guild_id: guildId, type: 10, quote: 'q-1' });
    expect(job?.data.temp_target_id).toBe('u-9');
    expect(r.body.data.nonce).toBe('');
  });

  it('with a template, the whole body is the input: a ~50 KB GitLab push, and an array', async () => {
    const templateId = await createTemplate(PUSH_CARD, 2);
    const { pipe, access_token } = await createPipe({ template_id: templateId });
    expect(pipe.template_id).toBe(templateId);
    expect(GITLAB_PUSH.length).toBeGreaterThan(45_000);
    const r = await app.request<Accepted>('POST', path(access_token), {
      raw: GITLAB_PUSH,
      headers: { 'Content-Type': 'application/json', 'X-Gitlab-Event': 'Push Hook' },
    });
    expect(r.status).toBe(200);
    const job = await queue.getJob(r.body.data.msg_id);
    expect(job?.data.template_id).toBe(templateId);
    expect(job?.data.type).toBeNull();
    // The body's bytes exactly as sent, deflated and in base64 (queue/job-input.ts): a fraction
    // of the body's size in Redis.
    expect(job?.data.input_encoding).toBe('deflate-base64');
    expect(job?.data.input.length).toBeLessThan(GITLAB_PUSH.length / 3);
    expect(inputText(job?.data.input ?? '', job?.data.input_encoding)).toBe(GITLAB_PUSH);

    const arr = await send(access_token, [{ a: 1 }, 'two']);
    expect(arr.status).toBe(200);
    const arrJob = (await queue.getJob(arr.body.data.msg_id))?.data;
    expect(JSON.parse(inputText(arrJob?.input ?? '', arrJob?.input_encoding))).toEqual([{ a: 1 }, 'two']);
  });
});

describe('refusals, each in the envelope', () => {
  let token: string;
  beforeAll(async () => {
    token = (await createPipe()).access_token;
  });

  it('400 without content, with empty or non-string content, for a plain pipe', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'Invalid parameter: content: is required'],
      [{ content: '  ' }, 'Invalid parameter: content: must not be empty'],
      [{ content: 5 }, 'Invalid parameter: content: must be a string'],
      [['x'], 'Invalid parameter: content: is required'],
    ];
    for (const [json, message] of cases) {
      const r = await send(token, json, '', en);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ code: 40000, message, data: { field: 'content' } });
    }
  });

  it('400 for invalid JSON, 415 for a non-JSON body, 413 over the body limit', async () => {
    const bad = await app.request('POST', path(token), {
      raw: '{"content": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(40001);
    expect(bad.body.data).toEqual({});
    const form = await app.request('POST', path(token), {
      raw: 'content=hi',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body).toEqual({
      code: 41500,
      message: '请求体必须是 JSON（Content-Type: application/json）',
      data: {},
    });
    const big = await send(token, { content: 'x'.repeat(130 * 1024) }, '', en);
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ code: 41300, message: 'Request body too large, at most 128 KiB', data: {} });
  });

  it('400 for a bad type or a target_id outside the pipe server or not a text channel', async () => {
    const type = await send(token, { content: 'x' }, '&type=1', en);
    expect(type.status).toBe(400);
    expect(type.body.data).toEqual({ field: 'type' });
    const elsewhere = await createTestChannel(app, (await createTestGuild(app)).id);
    const voice = await createTestChannel(app, guildId, { name: 'voice', type: 2 });
    for (const target of [elsewhere.id, voice.id, '999999']) {
      const r = await send(token, { content: 'x' }, `&target_id=${target}`, en);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        code: 40000,
        message: "Invalid parameter: target_id: must be a text channel in the pipe's server",
        data: { field: 'target_id' },
      });
    }
  });

  it('401 without a token, and for malformed, unknown or wrong tokens', async () => {
    const none = await app.request('POST', '/api/v3/message/send-pipemsg', { json: { content: 'x' } });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ code: 40100, message: '缺少身份凭证', data: {} });
    const [, secret] = token.split('.');
    for (const t of ['nope', `hrp_123.${secret}`, `${token.slice(0, -2)}xx`, `hrb_${token.slice(4)}`]) {
      const r = await send(t, { content: 'x' }, '', en);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ code: 40101, message: 'Invalid token', data: {} });
    }
  });

  it('reads the query as URLSearchParams does: decoding, repeated names, names without a value', async () => {
    const url = (query: string) => `/api/v3/message/send-pipemsg?${query}`;
    const post = (query: string) => app.request<Accepted>('POST', url(query), { json: { content: 'q' } });
    // Decoded: %-escapes and '+' (the token itself may arrive %-encoded).
    const encoded = await post(`access_token=${encodeURIComponent(token).replace('_', '%5F')}&nonce=a+b%21`);
    expect(encoded.status).toBe(200);
    expect(encoded.body.data.nonce).toBe('a b!');
    // Plain: empty pairs skipped, a name without '=' is the empty string.
    const plain = await post(`&access_token=${token}&&nonce=x.y-z_~&quote`);
    expect(plain.status).toBe(400);
    expect(plain.body.data).toEqual({ field: 'quote' });
    expect((await post(`access_token=${token}&&nonce=x.y-z_~`)).body.data.nonce).toBe('x.y-z_~');
    // A repeated token or type is a list, not a string: refused.
    expect((await post(`access_token=${token}&access_token=${token}`)).status).toBe(401);
    const twice = await post(`access_token=${token}&type=9&type=9`);
    expect(twice.status).toBe(400);
    expect(twice.body.data).toEqual({ field: 'type' });
    // An empty token is a malformed one.
    expect((await post('access_token=&nonce=1')).body.code).toBe(40101);
  });

  it('401 once the pipe is disabled, rotated or deleted; enabled again it works', async () => {
    const { pipe, access_token } = await createPipe();
    expect((await send(access_token, { content: 'warm the cache' })).status).toBe(200);
    const update = (json: Record<string, unknown>) =>
      app.request('POST', '/admin/api/pipe/update', { admin: true, json: { id: pipe.id, ...json } });
    expect((await update({ enabled: false })).status).toBe(200);
    expect((await send(access_token, { content: 'x' })).status).toBe(401);
    expect((await update({ enabled: true })).status).toBe(200);
    expect((await send(access_token, { content: 'x' })).status).toBe(200);
    const rotated = await app.request<{ access_token: string }>('POST', '/admin/api/pipe/rotate-token', {
      admin: true,
      json: { id: pipe.id },
    });
    const fresh = rotated.body.data.access_token;
    expect((await send(access_token, { content: 'x' })).status).toBe(401);
    expect((await send(fresh, { content: 'x' })).status).toBe(200);
    expect(
      (await app.request('POST', '/admin/api/pipe/delete', { admin: true, json: { id: pipe.id } })).status,
    ).toBe(200);
    expect((await send(fresh, { content: 'x' })).status).toBe(401);
  });

  it("403 while the pipe's bot is disabled by an operator; enabled again it works", async () => {
    const other = await createTestBot(app, { name: 'to be disabled' });
    await addTestMember(app, guildId, other.bot.user_id as string);
    const r = await app.request<Created>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: other.id, title: 'bot off', channel_id: channelId },
    });
    const token = r.body.data.access_token;
    expect((await send(token, { content: 'warm the cache' })).status).toBe(200);
    const setBot = (enabled: boolean) =>
      app.request('POST', '/admin/api/bot/update', { admin: true, json: { id: other.id, enabled } });
    expect((await setBot(false)).status).toBe(200);
    const refused = await send(token, { content: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(40300);
    expect((await setBot(true)).status).toBe(200);
    expect((await send(token, { content: 'x' })).status).toBe(200);
  });
});

describe('rate limit at the door', () => {
  it('429 over the pipe budget, with X-Rate-Limit-* on every answer', async () => {
    const { access_token } = await createPipe({ rate_limit: { capacity: 3, per_second: 0.01 } });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await send(access_token, { content: `m${i}` }, '', en));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-rate-limit-remaining'))).toEqual(['2', '1', '0', '0']);
    for (const a of answers) {
      expect(a.headers.get('x-rate-limit-limit')).toBe('3');
      expect(a.headers.get('x-rate-limit-bucket')).toBe('message/send-pipemsg');
      expect(Number(a.headers.get('x-rate-limit-reset'))).toBeGreaterThan(0);
    }
    expect(answers[3]!.body).toEqual({ code: 42900, message: 'Too many requests, retry in 100 s', data: {} });
    // Refused before the body is read: even a body that would be 400 is 429 now.
    const bad = await app.request('POST', path(access_token), {
      raw: '{',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(bad.status).toBe(429);
  });

  it('a busy pipe is served from a lease, and Remaining still counts down by one', async () => {
    const { pipe, access_token } = await createPipe({ rate_limit: { capacity: 1000, per_second: 0.01 } });
    const remaining = [];
    for (let i = 0; i < 30; i++) {
      const r = await send(access_token, { content: `m${i}` });
      expect(r.status).toBe(200);
      remaining.push(Number(r.headers.get('x-rate-limit-remaining')));
    }
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => 999 - i));
    // The bucket in Redis is short of more than the 30 spent: this process holds a lease.
    const raw = await app.res.pipeRuntime.redis.get(`${app.config.redisPrefix}:rl:pipe:${pipe.id}:send`);
    expect(Number(raw?.split(' ')[0])).toBeLessThan(1000 - 30);
  });

  it('the headers are on 400 answers of an admitted request too', async () => {
    const { access_token } = await createPipe();
    const r = await send(access_token, {});
    expect(r.status).toBe(400);
    expect(r.headers.get('x-rate-limit-limit')).toBe(String(app.config.pipeRateBurst));
    expect(r.headers.get('x-rate-limit-bucket')).toBe('message/send-pipemsg');
  });
});

describe('Idempotency-Key', () => {
  it('the same key and body answers the first msg_id and enqueues nothing more', async () => {
    const { access_token } = await createPipe();
    const headers = { 'Idempotency-Key': 'build-42' };
    const first = await send(access_token, { content: 'deploy done' }, '&nonce=a', headers);
    expect(first.status).toBe(200);
    const before = await waitingCount();
    const again = await send(access_token, { content: 'deploy done' }, '&nonce=a', headers);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(await waitingCount()).toBe(before);
  });

  it('the same key with another body is 409', async () => {
    const { access_token } = await createPipe();
    const headers = { 'Idempotency-Key': 'k-1', ...en };
    expect((await send(access_token, { content: 'one' }, '', headers)).status).toBe(200);
    const r = await send(access_token, { content: 'two' }, '', headers);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      code: 40910,
      message: 'This Idempotency-Key was already used with a different body',
      data: {},
    });
  });

  it('racing requests with one key store one message', async () => {
    const { access_token } = await createPipe();
    const before = await waitingCount();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        send(access_token, { content: 'race' }, '', { 'Idempotency-Key': 'same-key' }),
      ),
    );
    const ok = answers.filter((a) => a.status === 200);
    // A request that finds the first one still storing is told to retry (409 in progress).
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.code).toBe(40911);
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((a) => a.body.data.msg_id)).size).toBe(1);
    expect(await waitingCount()).toBe(before + 1);
    const retry = await send(access_token, { content: 'race' }, '', { 'Idempotency-Key': 'same-key' });
    expect(retry.body.data.msg_id).toBe(ok[0]!.body.data.msg_id);
  });

  it('keys are per pipe, and a bad key is 400', async () => {
    const a = await createPipe();
    const b = await createPipe();
    const h = { 'Idempotency-Key': 'shared' };
    const ra = await send(a.access_token, { content: 'x' }, '', h);
    const rb = await send(b.access_token, { content: 'x' }, '', h);
    expect(ra.body.data.msg_id).not.toBe(rb.body.data.msg_id);
    const bad = await send(a.access_token, { content: 'x' }, '', { 'Idempotency-Key': 'k'.repeat(256) });
    expect(bad.status).toBe(400);
    expect(bad.body.data).toEqual({ field: 'Idempotency-Key' });
  });
});

describe('pipemsg-status', () => {
  it('answers queued for the pipe and for its bot; another pipe or bot sees nothing', async () => {
    const { access_token } = await createPipe();
    const sent = await send(access_token, { content: 'status?' });
    const msgId = sent.body.data.msg_id;
    const byPipe = await app.request<Record<string, unknown>>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
      { headers: { Authorization: `Pipe ${access_token}` } },
    );
    expect(byPipe.status).toBe(200);
    expect(byPipe.body.data).toEqual({
      msg_id: msgId,
      status: 'queued',
      attempts: 0,
      msg_timestamp: sent.body.data.msg_timestamp,
      sent_at: null,
      upstream_msg_id: null,
      folded_into: null,
      // Every message it is sent as, once sent (docs/pipes.md, "Messages that always fit").
      parts: [],
      retry_at: null,
      not_permissions_mention: [],
      // A plain pipe's message: no template, no event (routing by event: send-pipemsg-routing.test.ts).
      template_id: null,
      event: null,
      error: null,
    });
    expect(byPipe.headers.get('x-rate-limit-bucket')).toBe('message/pipemsg-status');
    const byBot = await app.request<Record<string, unknown>>(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
      { bot: bot.token },
    );
    expect(byBot.body.data.status).toBe('queued');
    const other = await createPipe();
    const byOther = await app.request(
      'GET',
      `/api/v3/message/pipemsg-status?msg_id=${msgId}&access_token=${other.access_token}`,
    );
    expect(byOther.status).toBe(404);
    const otherBot = await createTestBot(app);
    expect(
      (await app.request('GET', `/api/v3/message/pipemsg-status?msg_id=${msgId}`, { bot: otherBot.token }))
        .status,
    ).toBe(404);
    const unknown = await app.request('GET', `/api/v3/message/pipemsg-status?msg_id=nope`, {
      headers: { Authorization: `Pipe ${access_token}` },
    });
    expect(unknown.status).toBe(404);
  });

  it("answers a failure's message in the reader's language", async () => {
    const { access_token, pipe } = await createPipe();
    const sent = await send(access_token, { content: 'dies' });
    const msgId = sent.body.data.msg_id;
    await markFailed(
      app.res,
      { msg_id: msgId, bot_id: bot.id, pipe_id: pipe.id, channel_id: channelId },
      fail(REASON.UPSTREAM_REJECTED, { status: 403, upstream_code: 40300, detail: 'bot muted' }),
      1,
      null,
    );
    const status = (headers: Record<string, string>) =>
      app.request<{ error: { reason: string; code: number; message: string } }>(
        'GET',
        `/api/v3/message/pipemsg-status?msg_id=${msgId}`,
        { headers: { Authorization: `Pipe ${access_token}`, ...headers } },
      );
    const zh = '转发目标拒绝了消息（HTTP 403，错误码 40300）：bot muted';
    expect((await status({})).body.data.error).toEqual({
      reason: 'UPSTREAM_REJECTED',
      code: 40326,
      message: zh,
    });
    expect((await status({ 'Accept-Language': 'zh-CN' })).body.data.error.message).toBe(zh);
    expect((await status(en)).body.data.error.message).toBe(
      'The relay target refused the message (HTTP 403, code 40300): bot muted',
    );
  });
});

describe('the token stays out of logs', () => {
  it('never appears in a log line, whichever way it was sent and however the request ended', async () => {
    const { access_token } = await createPipe({ rate_limit: { capacity: 2, per_second: 0.01 } });
    await send(access_token, { content: 'ok' });
    await app.request('POST', '/api/v3/message/send-pipemsg', {
      json: {},
      headers: { Authorization: `Pipe ${access_token}` },
    });
    await send(access_token, { content: 'limited' });
    await send(`${access_token}x`, { content: 'bad token' });
    await app.request('GET', `/api/v3/message/pipemsg-status?msg_id=x&access_token=${access_token}`);
    const [, secret] = access_token.split('.');
    expect(app.logText()).not.toContain(secret);
    expect(app.logText()).not.toContain('hrp_');
    expect(app.logs.some((l) => l.path === '/api/v3/message/send-pipemsg')).toBe(true);
  });
});

describe('INPUT_DEFLATE_MIN_BYTES above every body (a rolling upgrade from workers without deflate)', () => {
  it('queues template inputs as base64 only', async () => {
    const plain = await startTestApp('send_pipemsg_plain_input', { INPUT_DEFLATE_MIN_BYTES: '67108865' });
    try {
      const b = await createTestBot(plain);
      const g = await createTestGuild(plain);
      const c = (await createTestChannel(plain, g.id)).id;
      await addTestMember(plain, g.id, b.bot.user_id as string);
      const tpl = await plain.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
        bot: b.token,
        json: { title: 'tpl', content: PUSH_CARD, msgtype: 2 },
      });
      const created = await plain.request<Created>('POST', '/admin/api/pipe/create', {
        admin: true,
        json: { bot_id: b.id, title: 'CI', channel_id: c, template_id: tpl.body.data.model.id },
      });
      const r = await plain.request<Accepted>('POST', path(created.body.data.access_token), {
        raw: GITLAB_PUSH,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(r.status).toBe(200);
      const job = await plain.res.pipeRuntime.queue.getJob(r.body.data.msg_id);
      expect(job?.data.input_encoding).toBe('base64');
      expect(Buffer.from(job?.data.input ?? '', 'base64').toString('utf8')).toBe(GITLAB_PUSH);
    } finally {
      await plain.close();
    }
  });
});
