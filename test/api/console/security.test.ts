import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RawAnswer, signIn, useConsoleDir } from '../../helpers/console.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../../helpers/test-app.js';

/**
 * The headers every /console answer carries, and the operators' token kept out of answers, logs
 * and URLs, over one pass through every kind of console answer.
 */
const dir = useConsoleDir();
let app: TestApp;
const answers: Array<{ what: string; r: RawAnswer }> = [];

beforeAll(async () => {
  app = await startTestApp('console_security', { CONSOLE_DIR: dir });
});
afterAll(() => app?.close());

const HTML = { Accept: 'text/html' };

async function record(what: string, r: Promise<RawAnswer>): Promise<RawAnswer> {
  const answer = await r;
  answers.push({ what, r: answer });
  return answer;
}

describe('every kind of console answer', () => {
  it('carries the CSP and the other security headers', async () => {
    await record('redirect', call(app, 'GET', '/console'));
    await record('index', call(app, 'GET', '/console/'));
    await record('fallback', call(app, 'GET', '/console/pipes/new'));
    await record('asset', call(app, 'GET', '/console/assets/app-1a2b3c.js'));
    await record('missing asset', call(app, 'GET', '/console/assets/gone.js'));
    await record('405', call(app, 'DELETE', '/console/'));
    await record('unknown API', call(app, 'GET', '/console/api/none'));
    await record(
      'wrong sign-in',
      call(app, 'POST', '/console/api/session', { json: { token: 'nope-0123456789abcdefghij' } }),
    );
    await record('bad sign-in body', call(app, 'POST', '/console/api/session', { json: [] }));
    const { cookie, csrf } = await signIn(app);
    await record('session', call(app, 'GET', '/console/api/session', { cookie }));
    // The router matches paths case-insensitively: the headers must follow it there.
    await record('session, upper case', call(app, 'GET', '/CONSOLE/API/SESSION', { cookie }));
    await record('index, upper case', call(app, 'GET', '/CONSOLE/'));
    await record('no session', call(app, 'GET', '/console/api/session'));
    await record('sign-in', call(app, 'POST', '/console/api/session', { json: { token: TEST_ADMIN_TOKEN } }));
    await record('queues redirect', call(app, 'GET', '/console/queues/', { headers: HTML }));
    await record('queues 401', call(app, 'GET', '/console/queues/api/queues'));
    await record('queues page', call(app, 'GET', '/console/queues/', { cookie, headers: HTML }));
    await record('queues API', call(app, 'GET', '/console/queues/api/redis/stats', { cookie }));
    await record('queues file', call(app, 'GET', '/console/queues/static/images/logo.svg', { cookie }));
    await record('queues CSRF', call(app, 'PUT', '/console/queues/api/queues/pause', { cookie }));
    await record('sign-out CSRF', call(app, 'DELETE', '/console/api/session', { cookie }));
    await record('sign-out', call(app, 'DELETE', '/console/api/session', { cookie, csrf }));
    const kinds = new Set<number>();
    for (const { what, r } of answers) {
      kinds.add(r.status);
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp, what).toMatch(/^default-src 'self'; script-src 'self'/);
      expect(csp, what).toContain("frame-ancestors 'none'");
      expect(csp, what).toContain("object-src 'none'");
      expect(csp, what).not.toContain('unsafe');
      expect(r.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(r.headers.get('referrer-policy'), what).toBe('no-referrer');
      expect(r.headers.get('x-frame-options'), what).toBe('DENY');
    }
    expect([...kinds].sort()).toEqual([200, 302, 308, 400, 401, 403, 404, 405]);
  });

  it('also when refused before Koa (a body over the limit)', async () => {
    const r = await rawRequest(
      app.base,
      `POST /console/api/session HTTP/1.1\r\nHost: herald\r\nContent-Type: application/json\r\nContent-Length: ${
        app.config.bodyLimitBytes + 1
      }\r\n\r\n`,
    );
    expect(r.status).toBe(413);
    expect(r.headers['content-security-policy']).toMatch(/^default-src 'self'/);
    expect(r.headers['x-frame-options']).toBe('DENY');
  });

  it("never shows the operators' token: not in an answer, a header, a log line or a URL", async () => {
    expect(answers.length).toBeGreaterThan(15);
    for (const { what, r } of answers) {
      expect(r.text, what).not.toContain(TEST_ADMIN_TOKEN);
      for (const [name, value] of r.headers)
        expect(`${name}: ${value}`, what).not.toContain(TEST_ADMIN_TOKEN);
    }
    const logs = app.logText();
    expect(logs).toContain('/console/api/session');
    expect(logs).not.toContain(TEST_ADMIN_TOKEN);
    for (const line of app.logs) {
      expect(String(line.path ?? '')).not.toContain(TEST_ADMIN_TOKEN);
    }
    // No answer sends the browser to a URL carrying it.
    for (const { r } of answers) expect(r.headers.get('location') ?? '').not.toContain(TEST_ADMIN_TOKEN);
  });
});
