import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Capture } from '../../src/domain/pipes/captures.js';
import { pipeCaptureKey, pipeCapturesKey } from '../../src/redis/keys.js';
import { call, signIn } from '../helpers/console.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

/** Captured payloads of send-pipemsg (docs/pipes.md, "Captured payloads"), on the real Redis. */
let app: TestApp;
let bot: { id: string; token: string; bot: Record<string, unknown> };
let channelId: string;
let templateId: string;

interface Created {
  pipe: { id: string; capture: boolean };
  access_token: string;
}

const MAX_ITEMS = 20;
const MAX_BYTES = 64 * 1024;
const TTL_MS = 7 * 24 * 60 * 60 * 1000;

async function createPipe(body: Record<string, unknown> = {}): Promise<Created> {
  const r = await app.request<Created>('POST', '/admin/api/pipe/create', {
    admin: true,
    json: { bot_id: bot.id, title: 'captures', channel_id: channelId, ...body },
  });
  if (r.status !== 200) throw new Error(`pipe create failed: ${r.text}`);
  return r.body.data;
}

const sendPath = (token: string) => `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}`;

/** Sends `raw` as it is, JSON by default. */
const sendRaw = (token: string, raw: string | Uint8Array, headers: Record<string, string> = {}) =>
  app.request<{ msg_id: string; msg_timestamp: number }>('POST', sendPath(token), {
    raw,
    headers: { 'Content-Type': 'application/json', ...headers },
  });

async function accepted(token: string, raw: string, headers: Record<string, string> = {}) {
  const r = await sendRaw(token, raw, headers);
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

const capturesOf = async (pipeId: string) => {
  const r = await app.request<{ items: Capture[] }>('GET', `/admin/api/pipe/captures?id=${pipeId}`, {
    admin: true,
  });
  expect(r.status, r.text).toBe(200);
  return r.body.data.items;
};

/** The capture write is not awaited by the answer: wait until `count` are readable. */
async function capturesAtLeast(pipeId: string, count: number): Promise<Capture[]> {
  let items: Capture[] = [];
  await expect
    .poll(
      async () => {
        items = await capturesOf(pipeId);
        return items.length;
      },
      { timeout: 5_000, interval: 20 },
    )
    .toBeGreaterThanOrEqual(count);
  return items;
}

/** Every Redis key the pipe's captures use (the list and each capture's string). */
async function captureKeys(pipeId: string): Promise<string[]> {
  const prefix = app.config.redisPrefix;
  const items = await app.res.redis.keys(`${pipeCaptureKey(prefix, pipeId, '')}*`);
  const list = (await app.res.redis.exists(pipeCapturesKey(prefix, pipeId))) === 1;
  return list ? [pipeCapturesKey(prefix, pipeId), ...items] : items;
}

/** Everything stored for a pipe's captures, as text. */
async function storedText(pipeId: string): Promise<string> {
  const parts: string[] = [];
  for (const key of await captureKeys(pipeId)) {
    const type = await app.res.redis.type(key);
    parts.push(
      key,
      JSON.stringify(type === 'list' ? await app.res.redis.lrange(key, 0, -1) : await app.res.redis.get(key)),
    );
  }
  return parts.join('\n');
}

/** A `{"content": "aaa..."}` body of exactly `bytes` bytes. */
const bodyOfSize = (bytes: number): string => `{"content":"${'a'.repeat(bytes - 14)}"}`;

beforeAll(async () => {
  app = await startTestApp('pipe_captures');
  bot = await createTestBot(app);
  const guild = await createTestGuild(app);
  channelId = (await createTestChannel(app, guild.id)).id;
  await addTestMember(app, guild.id, bot.bot.user_id as string);
  const t = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
    bot: bot.token,
    json: { title: 'push', content: '{{ data.ref }}', msgtype: 1, test_data: '{"ref":"main"}' },
  });
  if (t.status !== 200) throw new Error(t.text);
  templateId = t.body.data.model.id;
});
afterAll(() => app?.close());

describe('what a capture keeps', () => {
  it('is on by default, and shown in the pipe views', async () => {
    const { pipe } = await createPipe();
    expect(pipe.capture).toBe(true);
    const view = await app.request<{ pipe: { capture: boolean } }>(
      'GET',
      `/admin/api/pipe/view?id=${pipe.id}`,
      {
        admin: true,
      },
    );
    expect(view.body.data.pipe.capture).toBe(true);
    const list = await app.request<{ items: Array<{ id: string; capture: boolean }> }>(
      'GET',
      `/admin/api/pipe/list?bot_id=${bot.id}&page_size=50`,
      { admin: true },
    );
    expect(list.body.data.items.find((p) => p.id === pipe.id)?.capture).toBe(true);
    expect(await capturesOf(pipe.id)).toEqual([]);
  });

  it('reads as on for a pipe stored before captures existed', async () => {
    const { pipe, access_token } = await createPipe();
    const { default: mongoose } = await import('mongoose');
    const conn = mongoose.createConnection(app.config.mongoUrl, {
      dbName: `herald_test_${app.config.redisPrefix.replace('herald-test-', '')}`,
    });
    await conn.asPromise();
    await conn.collection('pipes').updateOne({ _id: pipe.id as never }, { $unset: { capture: '' } });
    const doc = await conn.collection('pipes').findOne({ _id: pipe.id as never });
    await conn.close();
    expect(doc).not.toHaveProperty('capture');
    app.res.pipeRuntime.pipes.invalidate(pipe.id);
    const view = await app.request<{ pipe: { capture: boolean } }>(
      'GET',
      `/admin/api/pipe/view?id=${pipe.id}`,
      {
        admin: true,
      },
    );
    expect(view.body.data.pipe.capture).toBe(true);
    await accepted(access_token, '{"content":"old pipe"}');
    expect(await capturesAtLeast(pipe.id, 1)).toHaveLength(1);
  });

  it('keeps the accepted body as received, its content type, size and allow-listed headers', async () => {
    const { pipe, access_token } = await createPipe({ template_id: templateId });
    // Odd spacing, key order PHP would keep, and non-ASCII text: kept byte for byte.
    const raw = '{ "ref": "refs/heads/main",\n  "2": "b", "1": "a", "msg": "修复 ✓" }';
    const data = await accepted(access_token, raw, {
      'Content-Type': 'application/vnd.gitlab+json; charset=utf-8',
      'User-Agent': 'GitLab/17.0',
      'X-Gitlab-Event': 'Push Hook',
      'X-Gitlab-Event-UUID': 'c0ffee',
      'X-Request-Id': 'req-1',
    });
    const [capture] = await capturesAtLeast(pipe.id, 1);
    expect(capture).toEqual({
      id: data.msg_id,
      received_at: new Date(data.msg_timestamp).toISOString(),
      content_type: 'application/vnd.gitlab+json; charset=utf-8',
      size: Buffer.byteLength(raw),
      headers: {
        'content-type': 'application/vnd.gitlab+json; charset=utf-8',
        'user-agent': 'GitLab/17.0',
        'x-gitlab-event': 'Push Hook',
        'x-gitlab-event-uuid': 'c0ffee',
        'x-request-id': 'req-1',
      },
      body: raw,
      too_large: false,
    });
  });

  it('keeps a compressed body as its decompressed text', async () => {
    const { pipe, access_token } = await createPipe({ template_id: templateId });
    const raw = JSON.stringify({ ref: 'refs/tags/v1', commits: Array.from({ length: 50 }, (_, i) => i) });
    await accepted(access_token, gzipSync(raw) as unknown as string, { 'Content-Encoding': 'gzip' });
    const [capture] = await capturesAtLeast(pipe.id, 1);
    expect(capture).toMatchObject({ body: raw, size: Buffer.byteLength(raw), too_large: false });
    expect(capture?.headers['content-encoding']).toBe('gzip');
  });

  it('captures only what was accepted: not a refused request, an idempotent repeat or a test message', async () => {
    const { pipe, access_token } = await createPipe();
    expect((await sendRaw(access_token, '{"nope":1}')).status).toBe(400);
    expect((await sendRaw(access_token, 'text', { 'Content-Type': 'text/plain' })).status).toBe(415);
    const first = await accepted(access_token, '{"content":"once"}', { 'Idempotency-Key': 'k-1' });
    const again = await accepted(access_token, '{"content":"once"}', { 'Idempotency-Key': 'k-1' });
    expect(again.msg_id).toBe(first.msg_id);
    const test = await app.request('POST', '/admin/api/pipe/send-test', {
      admin: true,
      json: { id: pipe.id },
    });
    expect(test.status, test.text).toBe(200);
    // A last message after the others: once it is captured, any capture of theirs would be too.
    const last = await accepted(access_token, '{"content":"last"}');
    await expect.poll(async () => (await capturesOf(pipe.id))[0]?.id).toBe(last.msg_id);
    const items = await capturesOf(pipe.id);
    expect(items.map((c) => c.id)).toEqual([last.msg_id, first.msg_id]);
    expect(items[1]?.headers['idempotency-key']).toBe('k-1');
  });
});

describe('captures kept before they were strings', () => {
  it('a capture kept as a hash (meta, body) is still listed, newest first, and cleared', async () => {
    const { pipe, access_token } = await createPipe();
    const prefix = app.config.redisPrefix;
    const meta = {
      at: Date.now() - 1_000,
      content_type: 'application/json',
      size: 2,
      headers: {},
      too_large: false,
    };
    await app.res.redis.hset(
      pipeCaptureKey(prefix, pipe.id, 'old-1'),
      'meta',
      JSON.stringify(meta),
      'body',
      '{}',
    );
    await app.res.redis.pexpire(pipeCaptureKey(prefix, pipe.id, 'old-1'), 60_000);
    await app.res.redis.lpush(pipeCapturesKey(prefix, pipe.id), 'old-1');
    const now = await accepted(access_token, JSON.stringify({ content: 'after the upgrade' }));
    await expect
      .poll(async () => (await capturesOf(pipe.id)).map((c) => c.id))
      .toEqual([now.msg_id, 'old-1']);
    const [fresh, old] = await capturesOf(pipe.id);
    expect(old).toMatchObject({ id: 'old-1', body: '{}', size: 2, too_large: false });
    expect(JSON.parse(fresh?.body ?? '')).toEqual({ content: 'after the upgrade' });
    expect(await app.res.redis.type(pipeCaptureKey(prefix, pipe.id, now.msg_id))).toBe('string');
  });
});

describe('limits', () => {
  it(`keeps the newest ${MAX_ITEMS}: the ${MAX_ITEMS + 1}st drops the oldest, and its capture`, async () => {
    const { pipe, access_token } = await createPipe();
    const ids: string[] = [];
    for (let i = 0; i < MAX_ITEMS + 1; i++) {
      ids.push((await accepted(access_token, JSON.stringify({ content: `message ${i}` }))).msg_id);
    }
    await expect.poll(async () => (await capturesOf(pipe.id))[0]?.id).toBe(ids[MAX_ITEMS]);
    const items = await capturesOf(pipe.id);
    expect(items).toHaveLength(MAX_ITEMS);
    expect(items.map((c) => c.id)).toEqual(ids.slice(1).reverse());
    expect(items.map((c) => JSON.parse(c.body ?? '').content)).toEqual(
      ids
        .slice(1)
        .map((_, i) => `message ${i + 1}`)
        .reverse(),
    );
    const prefix = app.config.redisPrefix;
    expect(await app.res.redis.exists(pipeCaptureKey(prefix, pipe.id, ids[0]!))).toBe(0);
    expect(await app.res.redis.llen(pipeCapturesKey(prefix, pipe.id))).toBe(MAX_ITEMS);
    expect(await app.res.redis.keys(`${pipeCaptureKey(prefix, pipe.id, '')}*`)).toHaveLength(MAX_ITEMS);
  });

  it('keeps a body of exactly 64 KiB; one byte more is kept without its text (too_large)', async () => {
    const { pipe, access_token } = await createPipe();
    const exact = bodyOfSize(MAX_BYTES);
    const over = bodyOfSize(MAX_BYTES + 1);
    expect(Buffer.byteLength(exact)).toBe(MAX_BYTES);
    const kept = await accepted(access_token, exact, { 'User-Agent': 'big/1' });
    const dropped = await accepted(access_token, over, { 'User-Agent': 'big/1' });
    await expect.poll(async () => (await capturesOf(pipe.id))[0]?.id).toBe(dropped.msg_id);
    const [overCapture, exactCapture] = await capturesOf(pipe.id);
    expect(exactCapture).toMatchObject({ id: kept.msg_id, size: MAX_BYTES, body: exact, too_large: false });
    expect(overCapture).toEqual({
      id: dropped.msg_id,
      received_at: new Date(dropped.msg_timestamp).toISOString(),
      content_type: 'application/json',
      size: MAX_BYTES + 1,
      headers: { 'content-type': 'application/json', 'user-agent': 'big/1' },
      body: null,
      too_large: true,
    });
    // The text is not in Redis either: the capture is its metadata and the newline alone.
    const key = pipeCaptureKey(app.config.redisPrefix, pipe.id, dropped.msg_id);
    expect((await app.res.redis.get(key))?.endsWith('}\n')).toBe(true);
  });

  it('expires each capture, and the list, 7 days after it was taken', async () => {
    const { pipe, access_token } = await createPipe();
    const { msg_id } = await accepted(access_token, '{"content":"expires"}');
    await capturesAtLeast(pipe.id, 1);
    const prefix = app.config.redisPrefix;
    for (const key of [pipeCapturesKey(prefix, pipe.id), pipeCaptureKey(prefix, pipe.id, msg_id)]) {
      const pttl = await app.res.redis.pttl(key);
      expect(pttl, key).toBeGreaterThan(TTL_MS - 60_000);
      expect(pttl, key).toBeLessThanOrEqual(TTL_MS);
    }
  });
});

describe('redaction', () => {
  const secretHeaders = {
    Cookie: 'session=cookie-secret-1',
    'X-Hub-Signature': 'sha1=hub-secret-2',
    'X-Hub-Signature-256': 'sha256=hub-secret-3',
    'X-Gitlab-Token': 'gitlab-secret-4',
    'Webhook-Signature': 'v1,webhook-secret-5',
    'Sentry-Hook-Signature': 'sentry-secret-6',
    'X-Gitea-Signature': 'gitea-secret-7',
    'X-Custom-Header': 'custom-value-8',
    'User-Agent': 'GitHub-Hookshot/1a2b3c',
  };

  it('never keeps the access token, Authorization, cookies or signatures', async () => {
    const { pipe, access_token } = await createPipe();
    const secret = access_token.split('.')[1]!;
    // The token in the query, with every secret header.
    const one = await accepted(access_token, '{"content":"query token"}', {
      ...secretHeaders,
      'X-GitHub-Event': 'push',
      'X-GitHub-Delivery': 'd-1',
      'Webhook-Id': 'msg_1',
    });
    // The token in Authorization (and another in the query would lose to it: give none there).
    const viaHeader = await app.request<{ msg_id: string }>('POST', '/api/v3/message/send-pipemsg', {
      raw: '{"content":"header token"}',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Pipe ${access_token}`,
        ...secretHeaders,
      },
    });
    expect(viaHeader.status, viaHeader.text).toBe(200);
    const items = await capturesAtLeast(pipe.id, 2);
    expect(items.map((c) => c.id)).toEqual([viaHeader.body.data.msg_id, one.msg_id]);
    expect(items[1]?.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/1a2b3c',
      'x-github-event': 'push',
      'x-github-delivery': 'd-1',
      'webhook-id': 'msg_1',
    });
    expect(items[0]?.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/1a2b3c',
    });

    const answered = JSON.stringify(items);
    const stored = await storedText(pipe.id);
    expect(stored).toContain('query token'); // the reading works
    for (const text of [answered, stored]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain('access_token');
      expect(text.toLowerCase()).not.toContain('authorization');
      for (const [name, value] of Object.entries(secretHeaders)) {
        if (name !== 'User-Agent') expect(text).not.toContain(value);
      }
    }
  });
});

describe('turning off, clearing, deleting', () => {
  it('a pipe created with capture off keeps nothing', async () => {
    const { pipe, access_token } = await createPipe({ capture: false });
    expect(pipe.capture).toBe(false);
    const { msg_id } = await accepted(access_token, '{"content":"not kept"}');
    // The message itself is queued as ever.
    expect(await app.res.pipeRuntime.queue.getJob(msg_id)).toBeDefined();
    // A later capture on another pipe is written after this request's would have been.
    const other = await createPipe();
    await accepted(other.access_token, '{"content":"kept"}');
    await capturesAtLeast(other.pipe.id, 1);
    expect(await capturesOf(pipe.id)).toEqual([]);
    expect(await captureKeys(pipe.id)).toEqual([]);
  });

  it('turning it on keeps from then on; turning it off deletes what was kept', async () => {
    const { pipe, access_token } = await createPipe({ capture: false });
    const on = await app.request<{ pipe: { capture: boolean } }>('POST', '/admin/api/pipe/update', {
      admin: true,
      json: { id: pipe.id, capture: true },
    });
    expect(on.body.data.pipe.capture).toBe(true);
    await accepted(access_token, '{"content":"kept"}');
    await capturesAtLeast(pipe.id, 1);
    const off = await app.request<{ pipe: { capture: boolean } }>('POST', '/admin/api/pipe/update', {
      admin: true,
      json: { id: pipe.id, capture: false },
    });
    expect(off.body.data.pipe.capture).toBe(false);
    expect(await capturesOf(pipe.id)).toEqual([]);
    expect(await captureKeys(pipe.id)).toEqual([]);
    // Another update leaves it off.
    await app.request('POST', '/admin/api/pipe/update', {
      admin: true,
      json: { id: pipe.id, title: 'renamed' },
    });
    await accepted(access_token, '{"content":"not kept"}');
    const view = await app.request<{ pipe: { capture: boolean } }>(
      'GET',
      `/admin/api/pipe/view?id=${pipe.id}`,
      {
        admin: true,
      },
    );
    expect(view.body.data.pipe.capture).toBe(false);
    expect(await capturesOf(pipe.id)).toEqual([]);
  });

  it('clear deletes every capture; the pipe keeps capturing', async () => {
    const { pipe, access_token } = await createPipe();
    await accepted(access_token, '{"content":"one"}');
    await accepted(access_token, '{"content":"two"}');
    await capturesAtLeast(pipe.id, 2);
    const r = await app.request('POST', '/admin/api/pipe/captures/clear', {
      admin: true,
      json: { id: pipe.id },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual({});
    expect(await capturesOf(pipe.id)).toEqual([]);
    expect(await captureKeys(pipe.id)).toEqual([]);
    await accepted(access_token, '{"content":"three"}');
    expect((await capturesAtLeast(pipe.id, 1)).map((c) => c.body)).toEqual(['{"content":"three"}']);
  });

  it('deleting the pipe deletes its captures', async () => {
    const { pipe, access_token } = await createPipe();
    await accepted(access_token, '{"content":"one"}');
    await capturesAtLeast(pipe.id, 1);
    const r = await app.request('POST', '/admin/api/pipe/delete', { admin: true, json: { id: pipe.id } });
    expect(r.status, r.text).toBe(200);
    expect(await captureKeys(pipe.id)).toEqual([]);
    const gone = await app.request('GET', `/admin/api/pipe/captures?id=${pipe.id}`, { admin: true });
    expect(gone.status).toBe(404);
  });

  it('answers 404 for an unknown pipe and 401 without the admin token', async () => {
    const list = await app.request('GET', '/admin/api/pipe/captures?id=404404', { admin: true });
    expect(list.status).toBe(404);
    const clear = await app.request('POST', '/admin/api/pipe/captures/clear', {
      admin: true,
      json: { id: '404404' },
    });
    expect(clear.status).toBe(404);
    const { pipe } = await createPipe();
    expect((await app.request('GET', `/admin/api/pipe/captures?id=${pipe.id}`)).status).toBe(401);
    expect(
      (await app.request('GET', `/admin/api/pipe/captures?id=${pipe.id}`, { bot: bot.token })).status,
    ).toBe(401);
    expect(
      (await app.request('POST', '/admin/api/pipe/captures/clear', { json: { id: pipe.id } })).status,
    ).toBe(401);
  });
});

describe("a bot developer's studio session", () => {
  it("reads and clears its own bot's pipes' captures; another bot's pipe is not found", async () => {
    const { pipe, access_token } = await createPipe();
    await accepted(access_token, '{"content":"mine"}');
    await capturesAtLeast(pipe.id, 1);
    const own = await signIn(app, bot.token, 'bot');
    const list = await call(app, 'GET', `/admin/api/pipe/captures?id=${pipe.id}`, { cookie: own.cookie });
    expect([list.status, (list.body?.data as { items: Capture[] } | undefined)?.items.length]).toEqual([
      200, 1,
    ]);

    const other = await createTestBot(app);
    const stranger = await signIn(app, other.token, 'bot');
    const read = await call(app, 'GET', `/admin/api/pipe/captures?id=${pipe.id}`, {
      cookie: stranger.cookie,
    });
    expect([read.status, read.body?.code]).toEqual([404, 40401]);
    const clear = await call(app, 'POST', '/admin/api/pipe/captures/clear', {
      cookie: stranger.cookie,
      csrf: stranger.csrf,
      json: { id: pipe.id },
    });
    expect([clear.status, clear.body?.code]).toEqual([404, 40401]);
    expect(await capturesOf(pipe.id)).toHaveLength(1);

    const cleared = await call(app, 'POST', '/admin/api/pipe/captures/clear', {
      cookie: own.cookie,
      csrf: own.csrf,
      json: { id: pipe.id },
    });
    expect(cleared.status).toBe(200);
    expect(await capturesOf(pipe.id)).toEqual([]);
  });
});

describe('a capture that cannot be written', () => {
  it('loses the capture, never the message: the answer is 200 and the job is queued', async () => {
    const { pipe, access_token } = await createPipe();
    // The list's key holding another type makes the capture script fail.
    await app.res.redis.set(pipeCapturesKey(app.config.redisPrefix, pipe.id), 'not a list');
    const { msg_id } = await accepted(access_token, '{"content":"still sent"}');
    expect(await app.res.pipeRuntime.queue.getJob(msg_id)).toBeDefined();
    await expect
      .poll(() =>
        app.logs.find((l) => l.msg === 'payloads not captured' && (l.msg_ids as string[]).includes(msg_id)),
      )
      .toMatchObject({ level: 'warn', pipe_id: pipe.id });
    expect(await app.res.redis.exists(pipeCaptureKey(app.config.redisPrefix, pipe.id, msg_id))).toBe(0);
    expect(app.logText()).not.toContain(access_token.split('.')[1]!);
  });
});

describe('configured limits', () => {
  /** A second app with its own settings, a bot and a pipe on it. */
  async function appWith(env: Record<string, string>) {
    const other = await startTestApp('pipe_captures_config', env);
    const b = await createTestBot(other);
    const guild = await createTestGuild(other);
    const channel = await createTestChannel(other, guild.id);
    await addTestMember(other, guild.id, b.bot.user_id as string);
    const r = await other.request<Created>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: b.id, title: 'configured', channel_id: channel.id },
    });
    if (r.status !== 200) throw new Error(r.text);
    const send = async (raw: string) => {
      const s = await other.request<{ msg_id: string }>('POST', sendPath(r.body.data.access_token), {
        raw,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(s.status, s.text).toBe(200);
      return s.body.data.msg_id;
    };
    const list = async () =>
      (
        await other.request<{ items: Capture[] }>(
          'GET',
          `/admin/api/pipe/captures?id=${r.body.data.pipe.id}`,
          {
            admin: true,
          },
        )
      ).body.data.items;
    return { other, pipeId: r.body.data.pipe.id, send, list };
  }

  it('honours CAPTURE_MAX_ITEMS, CAPTURE_MAX_BYTES and CAPTURE_TTL_S', async () => {
    const { other, pipeId, send, list } = await appWith({
      CAPTURE_MAX_ITEMS: '2',
      CAPTURE_MAX_BYTES: '16',
      CAPTURE_TTL_S: '120',
    });
    try {
      const small = bodyOfSize(16);
      const big = bodyOfSize(17);
      await send(small);
      const second = await send(small);
      const third = await send(big);
      await expect.poll(async () => (await list())[0]?.id).toBe(third);
      const items = await list();
      expect(items.map((c) => [c.id, c.body, c.too_large])).toEqual([
        [third, null, true],
        [second, small, false],
      ]);
      const pttl = await other.res.redis.pttl(pipeCapturesKey(other.config.redisPrefix, pipeId));
      expect(pttl).toBeGreaterThan(60_000);
      expect(pttl).toBeLessThanOrEqual(120_000);
    } finally {
      await other.close();
    }
  });

  it('CAPTURE_MAX_ITEMS=0 captures nothing on any pipe', async () => {
    const { other, pipeId, send, list } = await appWith({ CAPTURE_MAX_ITEMS: '0' });
    try {
      await send('{"content":"not kept"}');
      // The next turn has passed once a second request has been answered.
      await send('{"content":"not kept either"}');
      expect(await list()).toEqual([]);
      expect(await other.res.redis.exists(pipeCapturesKey(other.config.redisPrefix, pipeId))).toBe(0);
    } finally {
      await other.close();
    }
  });
});
