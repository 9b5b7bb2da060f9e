import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type SignedIn, signIn, useConsoleDir } from '../../helpers/console.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** bull-board at /console/queues behind the console's session (src/api/console/queues.ts). */
const dir = useConsoleDir();
let app: TestApp;
let session: SignedIn;

beforeAll(async () => {
  app = await startTestApp('console_queues', { CONSOLE_DIR: dir });
  session = await signIn(app);
});
afterAll(() => app?.close());

const HTML = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const API = '/console/queues/api/queues?activeQueue=pipe-messages&status=latest&page=1';

describe('without a session', () => {
  it.each(['/console/queues', '/console/queues/', '/console/queues/queue/pipe-messages'])(
    'a browser opening %s is sent to /console/ to sign in',
    async (path) => {
      const r = await call(app, 'GET', path, { headers: HTML });
      expect([r.status, r.headers.get('location')]).toEqual([302, '/console/']);
      expect(r.text).not.toContain('__UI_CONFIG__');
      expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
    },
  );

  it.each([
    ['GET', API],
    ['GET', '/console/queues/static/js/main.js'],
    ['PUT', '/console/queues/api/queues/pipe-messages/pause'],
  ])('%s %s is a 401 envelope', async (method, path) => {
    const r = await call(app, method, path);
    expect([r.status, r.body?.code]).toEqual([401, 40100]);
  });
});

describe('with a session', () => {
  it('serves the page under the strict policy, its inline scripts by hash only', async () => {
    const r = await call(app, 'GET', '/console/queues/', { cookie: session.cookie, headers: HTML });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.text).toContain('<base href="/console/queues/" />');
    expect(r.text).toContain('Herald queues');
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(
      /^default-src 'self'; script-src 'self'( 'sha256-[A-Za-z0-9+/]+=*')*; style-src 'self';/,
    );
    expect(csp).not.toContain('unsafe');
    // Its files load relative to its <base>.
    expect(csp).toContain("base-uri 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    // A deep link serves the same page.
    const deep = await call(app, 'GET', '/console/queues/queue/pipe-messages', {
      cookie: session.cookie,
      headers: HTML,
    });
    expect([deep.status, deep.text]).toEqual([200, r.text]);
  });

  it('serves its files and its API', async () => {
    const page = await call(app, 'GET', '/console/queues/', { cookie: session.cookie, headers: HTML });
    const script = /<script defer src="(static\/js\/[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    const js = await call(app, 'GET', `/console/queues/${script}`, { cookie: session.cookie });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('content-security-policy')).toContain("script-src 'self'");
    const api = await call(app, 'GET', API, { cookie: session.cookie });
    expect(api.status).toBe(200);
    const body = JSON.parse(api.text) as { queues: Array<{ name: string; readOnlyMode: boolean }> };
    expect(body.queues.map((q) => [q.name, q.readOnlyMode])).toEqual([['pipe-messages', true]]);
    expect(api.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('Bearer opens it too', async () => {
    const r = await call(app, 'GET', API, { headers: { Authorization: `Bearer ${app.config.adminToken}` } });
    expect(r.status).toBe(200);
  });

  it('a state change without the CSRF token is 403; with it, the board is read-only', async () => {
    const path = '/console/queues/api/queues/pipe-messages/pause';
    const forged = await call(app, 'PUT', path, { cookie: session.cookie });
    expect([forged.status, forged.body?.code]).toEqual([403, 40302]);
    const r = await call(app, 'PUT', path, { cookie: session.cookie, csrf: session.csrf });
    expect(r.status).toBe(405);
    expect(r.text).toContain('QUEUE_READ_ONLY');
    expect(await app.res.pipeRuntime.queue.isPaused()).toBe(false);
  });

  it('an unknown path under it is the 404 envelope', async () => {
    for (const path of ['/console/queues/api/nothing', '/console/queues/static/nothing.js']) {
      const r = await call(app, 'GET', path, { cookie: session.cookie });
      expect([path, r.status, r.body?.code]).toEqual([path, 404, 40400]);
      expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
  });
});
