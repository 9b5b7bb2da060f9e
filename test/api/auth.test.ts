import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { createTestBot, startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/test-app.js';

/** Credentials are checked before a body is read (src/api/auth.ts). */
let app: TestApp;
let botToken: string;

beforeAll(async () => {
  app = await startTestApp('auth', { BOT_RATE_BURST: '2', BOT_RATE_PER_SECOND: '1' });
  botToken = (await createTestBot(app)).token;
});
afterAll(() => app?.close());

/** A POST whose body is announced but only begun: an answer that waits for it never comes. */
const slowPost = (path: string, authorization: string | undefined): string =>
  `POST ${path} HTTP/1.1\r\nHost: herald\r\nContent-Type: application/json\r\nAccept-Language: en-US\r\n` +
  `${authorization === undefined ? '' : `Authorization: ${authorization}\r\n`}Content-Length: 1000\r\n\r\n{"name":"`;

describe('credentials before the body', () => {
  it.each([
    ['/admin/api/bot/create', undefined, 40100],
    ['/admin/api/bot/create', 'Bearer wrong-token', 40101],
    ['/admin/api/pipe/create', `Bot ${TEST_ADMIN_TOKEN}`, 40100],
    ['/api/v3/intimacy/update', undefined, 40100],
    ['/api/v3/template/create', 'Bot unknown-token', 40101],
  ])('POST %s with %s: 401 without the body being read', async (path, authorization, code) => {
    const r = await rawRequest(app.base, slowPost(path, authorization));
    expect([r.status, JSON.parse(r.text).code]).toEqual([401, code]);
    // The rest of the body is not waited for: the connection closes.
    expect(r.headers.connection).toBe('close');
  });

  it('a bot over its budget gets 429 without the body being read', async () => {
    const path = '/api/v3/intimacy/update';
    // Spend the budget until a refusal shows it is empty (one token comes back per second).
    let spent = 0;
    while ((await app.request('POST', path, { bot: botToken, json: { user_id: '1' } })).status !== 429) {
      spent++;
      expect(spent).toBeLessThan(10);
    }
    const r = await rawRequest(app.base, slowPost(path, `Bot ${botToken}`));
    expect([r.status, JSON.parse(r.text).code, r.headers['x-rate-limit-remaining']]).toEqual([
      429,
      42900,
      '0',
    ]);
  });

  it('with credentials, the body is read as before', async () => {
    const r = await app.request('POST', '/admin/api/bot/create', { admin: true, json: { name: 'read' } });
    expect([r.status, r.body.code]).toEqual([200, 0]);
  });
});
