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
});
