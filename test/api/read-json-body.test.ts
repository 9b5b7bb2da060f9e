import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { createTestBot, startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/test-app.js';

/*
 * The one body reader (src/api/read-json-body.ts) as the Koa routes use it, driven over raw
 * HTTP so that a declared length can differ from what is sent.
 */
const LIMIT = 64 * 1024;
let app: TestApp;
let botToken: string;

beforeAll(async () => {
  app = await startTestApp('read_json_body', { BODY_LIMIT_BYTES: String(LIMIT) });
  botToken = (await createTestBot(app)).token;
});
afterAll(() => app?.close());

/** A POST's head with a declared length, and the first bytes of a body that never ends. */
const head = (path: string, auth: string, length: string, extra = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: herald\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\n` +
  `Accept-Language: en-US\r\nContent-Length: ${length}\r\n${extra}\r\n{"user_id":"1"`;

describe('declared lengths', () => {
  // 4294967297 is 2^32 + 1: cut to 32 bits it reads as 1 byte.
  it.each([
    ['/api/v3/intimacy/update', 'bot'],
    ['/api/v3/template/create', 'bot'],
    ['/admin/api/bot/create', 'admin'],
  ])('413 at once on %s for a declared length past 2^32, before any body arrives', async (path, who) => {
    const auth = who === 'bot' ? `Bot ${botToken}` : `Bearer ${TEST_ADMIN_TOKEN}`;
    for (const length of ['4294967297', String(10 * 1024 ** 3), String(LIMIT + 1)]) {
      const r = await rawRequest(app.base, head(path, auth, length));
      expect([length, r.status, JSON.parse(r.text)]).toEqual([
        length,
        413,
        { code: 41300, message: 'Request body too large, at most 64 KiB', data: {} },
      ]);
      // The body is not read: the connection is closed rather than drained.
      expect(r.headers.connection).toBe('close');
    }
  });

  it('413 at once for a compressed body declared over the limit', async () => {
    const r = await rawRequest(
      app.base,
      head('/api/v3/intimacy/update', `Bot ${botToken}`, '4294967297', 'Content-Encoding: gzip\r\n'),
    );
    expect([r.status, JSON.parse(r.text).code, r.headers.connection]).toEqual([413, 41300, 'close']);
  });

  it('413 at once on every route and method, before credentials or routing', async () => {
    const cases = [
      ['POST', '/api/v3/message/send-pipemsg?access_token=unknown'],
      ['POST', '/api/v3/no-such-route'],
      ['GET', '/healthz'],
      ['PUT', '/admin/api/bot/create'],
    ];
    for (const [method, path] of cases) {
      const r = await rawRequest(
        app.base,
        `${method} ${path} HTTP/1.1\r\nHost: herald\r\nX-Request-Id: big-${method}\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`,
      );
      expect([method, path, r.status, JSON.parse(r.text).code, r.headers.connection]).toEqual([
        method,
        path,
        413,
        41300,
        'close',
      ]);
      expect(r.headers['x-request-id']).toBe(`big-${method}`);
    }
    // Logged as any request is, with the path but never the query.
    await expect
      .poll(() => app.logs.find((l) => l.request_id === 'big-POST' && l.path === '/api/v3/no-such-route'))
      .toMatchObject({ msg: 'request', method: 'POST', route: null, status: 413 });
    expect(app.logText()).not.toContain('access_token=unknown');
  });
});

describe('text that is not Unicode', () => {
  const create = (raw: string | Buffer) =>
    app.request<{ field: string }>('POST', '/admin/api/bot/create', {
      admin: true,
      raw,
      headers: { 'Content-Type': 'application/json', 'Accept-Language': 'en-US' },
    });
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it.each([
    ['a lone high surrogate', '{"name":"a\\ud800b"}', 'name'],
    [
      'a lone low surrogate, nested',
      '{"name":"x","img_list":[{"id":"a","url":"https://x"},{"id":"\\uDFFF","url":"https://y"}]}',
      'img_list[1].id',
    ],
    ['a reversed pair', '{"name":"\\ude00\\ud83d"}', 'name'],
    ['a lone surrogate in a key', '{"name":"x","extra":{"k\\ud800":1}}', 'extra["k\\ud800"]'],
  ])('400 naming the field for %s (escaped)', async (_, raw, field) => {
    const r = await create(raw);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(40000);
    expect(r.body.data).toEqual({ field });
    expect(r.body.message).toBe(
      `Invalid parameter: ${field}: must be valid Unicode text (it holds a lone surrogate, \\ud800-\\udfff)`,
    );
  });

  it.each([
    ['a stray continuation byte', bytes('{"name":"a', [0xff], 'b"}'), 'name', 10],
    [
      'an overlong encoding',
      bytes('{"name":"x","img_list":[{"id":"', [0xc0, 0xaf], '","url":"https://x"}]}'),
      'img_list[0].id',
      31,
    ],
    ['an encoded surrogate', bytes('{"name":"', [0xed, 0xa0, 0x80], '"}'), 'name', 9],
    ['a cut-off sequence', bytes('{"name":"中', [0xe6, 0x96], '"}'), 'name', 12],
    ['bad bytes in a key', bytes('{"name":"x","k', [0xfe], '":1}'), '["k…"]', 14],
  ])('400 naming the field for %s (invalid UTF-8)', async (_, raw, field, at) => {
    const r = await create(raw);
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({ field });
    expect(r.body.message).toBe(`Invalid parameter: ${field}: must be valid UTF-8 text (byte ${at} is not)`);
  });

  it('400 invalid JSON for bad bytes outside any string', async () => {
    const r = await create(bytes('{"name":"x"', [0xff], '}'));
    expect([r.status, r.body.code, r.body.message]).toEqual([
      400,
      40001,
      'Request body is not valid JSON: invalid UTF-8 at byte 11',
    ]);
  });

  it('takes a surrogate pair, escaped or not, and a real U+FFFD, and keeps them', async () => {
    for (const raw of ['{"name":"\\ud83d\\ude00 \\ufffd"}', '{"name":"😀 \ufffd"}', '{"name":"\\\\ud800"}']) {
      const r = await create(raw);
      expect([raw, r.status]).toEqual([raw, 200]);
      expect((r.body.data as unknown as { bot: { name: string } }).bot.name).toBe(JSON.parse(raw).name);
    }
  });
});
