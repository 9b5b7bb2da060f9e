import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

/** Every error status answers with the envelope, in both languages, and nothing internal leaks. */
let app: TestApp;
let token: string;
beforeAll(async () => {
  app = await startTestApp('errors', {
    BODY_LIMIT_BYTES: '2048',
    BOT_RATE_BURST: '3',
    BOT_RATE_PER_SECOND: '1',
  });
  token = (await createTestBot(app)).token;
});
afterAll(() => app?.close());

const en = { 'Accept-Language': 'en-US' };

describe('error envelope by status', () => {
  it('400 invalid JSON', async () => {
    const r = await app.request('POST', '/admin/api/bot/create', {
      admin: true,
      raw: '{"name": ',
      headers: { 'Content-Type': 'application/json', ...en },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40001);
    expect(r.body.message).toMatch(/^Request body is not valid JSON: .*JSON/);
    expect(r.body.data).toEqual({});
  });

  it('400 for a JSON scalar body', async () => {
    const r = await app.request('POST', '/admin/api/bot/create', {
      admin: true,
      raw: '"just a string"',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('请求体不是合法的 JSON：请求体必须是 JSON 对象或数组');
  });

  it.each(['__proto__', 'constructor'])('400 for a %s key anywhere in the body', async (key) => {
    const r = await app.request('POST', '/admin/api/bot/create', {
      admin: true,
      raw: `{"name":"x","img_list":[{"id":"a","url":"https://x","nested":{"${key}":{"polluted":true}}}]}`,
      headers: { 'Content-Type': 'application/json', ...en },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 40002,
      message: `The key "${key}" is not allowed anywhere in the request`,
      data: {},
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('400 for JSON nested absurdly deep', async () => {
    const deep = `${'['.repeat(200)}${']'.repeat(200)}`;
    const r = await app.request('POST', '/admin/api/bot/create', {
      admin: true,
      raw: `{"name":${deep}}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40001);
  });

  it('404 unknown route, both languages', async () => {
    const zh = await app.request('GET', '/api/v3/nope');
    expect(zh.status).toBe(404);
    expect(zh.body).toEqual({ code: 40400, message: '接口不存在', data: {} });
    const e = await app.request('GET', '/api/v3/nope', { headers: en });
    expect(e.body.message).toBe('No such endpoint');
  });

  it('405 wrong method, with Allow', async () => {
    const r = await app.request('GET', '/api/v3/intimacy/update', { headers: en });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.body).toEqual({ code: 40500, message: 'Method GET is not allowed on this endpoint', data: {} });
  });

  it('413 body over the limit', async () => {
    const r = await app.request('POST', '/admin/api/bot/create', {
      admin: true,
      json: { name: 'x'.repeat(4096) },
    });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ code: 41300, message: '请求体过大，最多 2 KiB', data: {} });
  });

  it('415 form and text bodies', async () => {
    const form = await app.request('POST', '/api/v3/intimacy/update', {
      bot: token,
      raw: 'user_id=1&score=5',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body).toEqual({
      code: 41500,
      message: '请求体必须是 JSON（Content-Type: application/json）',
      data: {},
    });
    const text = await app.request('POST', '/api/v3/intimacy/update', {
      bot: token,
      raw: '{"user_id":"1"}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(415);
  });

  it('takes the bodies send-pipemsg takes: any-case and x-gzip encodings, +json types; 415 and 400 otherwise', async () => {
    const create = (raw: string | Uint8Array, headers: Record<string, string>) =>
      app.request('POST', '/admin/api/bot/create', {
        admin: true,
        raw,
        headers: { 'Content-Type': 'application/json', ...en, ...headers },
      });
    const gz = gzipSync(JSON.stringify({ name: 'zipped' }));
    for (const encoding of ['gzip', 'GZIP', ' x-gzip ']) {
      const r = await create(gz, { 'Content-Encoding': encoding });
      expect([encoding, r.status, r.body.code]).toEqual([encoding, 200, 0]);
    }
    const suffixed = await create(JSON.stringify({ name: 'suffixed', default_score: 7 }), {
      'Content-Type': 'application/vnd.herald+json',
    });
    expect(suffixed.status).toBe(200);
    expect(suffixed.body.data).toMatchObject({ bot: { default_score: 7 } });

    const unknown = await create(gz, { 'Content-Encoding': 'compress' });
    expect([unknown.status, unknown.body.code]).toEqual([415, 41501]);
    expect(unknown.body.message).toBe(
      'Content encoding "compress" is not supported (Content-Encoding); supported: identity, gzip, deflate, br',
    );
    // zlib's refusal, and brotli's two kinds (a bad stream, a cut-off one): 400, never a 500.
    const br = brotliCompressSync(JSON.stringify({ name: 'x'.repeat(500) }));
    for (const [encoding, body] of [
      ['gzip', Buffer.concat([gz.subarray(0, 12), Buffer.alloc(12, 7)])],
      ['br', Buffer.alloc(16, 0xff)],
      ['br', br.subarray(0, 5)],
    ] as const) {
      const corrupt = await create(body, { 'Content-Encoding': encoding });
      expect([encoding, corrupt.status, corrupt.body.code]).toEqual([encoding, 400, 40003]);
      expect(corrupt.body.message).toMatch(/could not be decompressed/);
    }
  });

  it('429 once the bot budget is spent, with the rate-limit headers on every answer', async () => {
    const { token: t } = await createTestBot(app);
    const path = '/api/v3/intimacy/index?user_id=u';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await app.request('GET', path, { bot: t, headers: en }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-rate-limit-remaining'))).toEqual(['2', '1', '0', '0']);
    const limited = answers[3]!;
    expect(limited.headers.get('x-rate-limit-limit')).toBe('3');
    expect(limited.headers.get('x-rate-limit-bucket')).toBe('intimacy/index');
    expect(Number(limited.headers.get('x-rate-limit-reset'))).toBeGreaterThanOrEqual(1);
    expect(limited.body).toEqual({ code: 42900, message: 'Too many requests, retry in 1 s', data: {} });
  });

  it('500 for an unexpected failure: generic message, error id in the body and in the log', async () => {
    // Real corruption in the real database, not a stub: an img_list the code cannot read.
    const { id, token: t } = await createTestBot(app);
    const { default: mongoose } = await import('mongoose');
    const conn = mongoose.createConnection(app.config.mongoUrl, {
      dbName: `herald_test_${app.config.redisPrefix.replace('herald-test-', '')}`,
    });
    await conn.asPromise();
    await conn.collection('bots').updateOne({ _id: id as never }, { $set: { img_list: 'not a list' } });
    await conn.close();
    const r = await app.request<{ error_id: string }>('GET', '/api/v3/intimacy/index?user_id=u', { bot: t });
    expect(r.status).toBe(500);
    const errorId = r.body.data.error_id;
    expect(errorId).toMatch(/^[0-9a-f]{12}$/);
    expect(r.body).toEqual({
      code: 50000,
      message: `服务器内部错误（错误编号 ${errorId}）`,
      data: { error_id: errorId },
    });
    expect(r.text).not.toMatch(/TypeError|at |\.ts/);
    const line = app.logs.find((l) => l.error_id === errorId);
    expect(line).toMatchObject({ level: 'error', status: 500, route: '/api/v3/intimacy/index' });
    expect(JSON.stringify(line?.error)).toContain('stack');
  });
});

describe('request log', () => {
  it('writes one line per request with method, route, status and duration, never a token or query', async () => {
    const secret = 'hrp_SECRET_IN_QUERY';
    await app.request('GET', `/api/v3/intimacy/index?user_id=logged&access_token=${secret}`, { bot: token });
    const line = app.logs.filter((l) => l.msg === 'request' && l.path === '/api/v3/intimacy/index').pop();
    expect(line).toMatchObject({
      method: 'GET',
      route: '/api/v3/intimacy/index',
      status: 200,
      level: 'info',
    });
    expect(typeof line?.duration_ms).toBe('number');
    expect(app.logText()).not.toContain(secret);
    expect(app.logText()).not.toContain(token);
    expect(app.logText()).not.toContain('test-admin-token');
  });
});

describe('health', () => {
  it('/healthz and /readyz answer in the envelope', async () => {
    expect((await app.request('GET', '/healthz')).body).toEqual({
      code: 0,
      message: '操作成功',
      data: { status: 'ok' },
    });
    expect((await app.request('GET', '/readyz')).body.data).toEqual({ database: 'ok', redis: 'ok' });
  });
});

describe('503 when a dependency is down', () => {
  let redisProxy: TcpProxy;
  let mongoProxy: TcpProxy;
  let down: TestApp;
  let t: string;
  beforeAll(async () => {
    const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const mongoUrl = new URL(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/herald');
    redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
    mongoProxy = await startTcpProxy(mongoUrl.hostname, Number(mongoUrl.port || 27017));
    down = await startTestApp('errors_down', {
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      MONGO_URL: `mongodb://127.0.0.1:${mongoProxy.port}/herald`,
      DB_TIMEOUT_MS: '300',
    });
    t = (await createTestBot(down)).token;
  });
  afterAll(async () => {
    redisProxy.restore();
    mongoProxy.restore();
    await down?.close();
    await redisProxy?.close();
    await mongoProxy?.close();
  });

  it('answers 503 quickly while the database is unreachable, and recovers', async () => {
    mongoProxy.cut();
    const started = Date.now();
    const r = await down.request<{ error_id: string }>('GET', '/api/v3/intimacy/index?user_id=u', {
      bot: t,
      headers: en,
    });
    expect(r.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(r.body.message).toBe(
      `Service temporarily unavailable, retry later (error id ${r.body.data.error_id})`,
    );
    expect(r.body.code).toBe(50300);
    const ready = await down.request<{ error_id: string }>('GET', '/readyz', { headers: en });
    expect(ready.status).toBe(503);
    const readyId = ready.body.data.error_id;
    expect(readyId).toMatch(/^[0-9a-f]{12}$/);
    expect(ready.body).toEqual({
      code: 50300,
      message: `Service temporarily unavailable, retry later (error id ${readyId})`,
      data: { database: 'down', redis: 'ok', error_id: readyId },
    });
    // The id leads to the log: the request's line, and the line saying what is down.
    expect(down.logs.filter((l) => l.error_id === readyId).map((l) => l.msg)).toEqual(
      expect.arrayContaining(['not ready']),
    );
    expect(down.logs.find((l) => l.error_id === readyId && l.msg === 'not ready')).toMatchObject({
      database: 'down',
      redis: 'ok',
    });
    expect(down.logs.some((l) => l.error_id === readyId && l.status === 503)).toBe(true);
    mongoProxy.restore();
    await expect
      .poll(async () => (await down.request('GET', '/readyz')).status, { timeout: 10_000 })
      .toBe(200);
  });

  it('answers 503 at once while Redis is unreachable, and recovers', async () => {
    redisProxy.cut();
    await expect
      .poll(async () => (await down.request('GET', '/api/v3/intimacy/index?user_id=u', { bot: t })).status, {
        timeout: 5_000,
      })
      .toBe(503);
    const ready = await down.request('GET', '/readyz');
    expect(ready.body.data).toMatchObject({ redis: 'down' });
    redisProxy.restore();
    await expect
      .poll(async () => (await down.request('GET', '/api/v3/intimacy/index?user_id=u', { bot: t })).status, {
        timeout: 10_000,
      })
      .toBe(200);
  });
});
