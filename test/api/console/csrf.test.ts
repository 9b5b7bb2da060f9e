import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type SignedIn, signIn, useConsoleDir } from '../../helpers/console.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { createTestBot, startTestApp, type TestApp } from '../../helpers/test-app.js';

/** The admin API with the console's cookie: CSRF on every state change (src/api/auth.ts). */
const dir = useConsoleDir();
let app: TestApp;
let session: SignedIn;
let bot: { id: string; token: string };

beforeAll(async () => {
  app = await startTestApp('console_csrf', { CONSOLE_DIR: dir });
  session = await signIn(app);
  bot = await createTestBot(app, { name: 'before' });
});
afterAll(() => app?.close());

const botName = async (): Promise<unknown> =>
  (await app.request<{ bot: { name: string } }>('GET', `/admin/api/bot/view?id=${bot.id}`, { admin: true }))
    .body.data.bot.name;
const botCount = async (): Promise<number> =>
  (await app.request<{ meta: { total: number } }>('GET', '/admin/api/bot/list', { admin: true })).body.data
    .meta.total;

describe('cookie-authenticated admin calls', () => {
  it('GET needs no CSRF token', async () => {
    const r = await call(app, 'GET', `/admin/api/bot/view?id=${bot.id}`, { cookie: session.cookie });
    expect([r.status, r.body?.code]).toEqual([200, 0]);
  });

  it.each([
    ['without X-CSRF-Token', undefined],
    ['with an empty one', ''],
    ['with a wrong one', 'wrong-csrf-token'],
    ['with one a character short', 'short'],
  ])('a state change %s is 403 CSRF_REJECTED and changes nothing', async (_, csrf) => {
    const cookie = session.cookie;
    const tok = csrf === 'short' ? session.csrf.slice(0, -1) : csrf;
    const opts = tok === undefined ? { cookie } : { cookie, csrf: tok };
    const before = await botCount();
    const update = await call(app, 'POST', '/admin/api/bot/update', {
      ...opts,
      json: { id: bot.id, name: 'forged' },
    });
    expect([update.status, update.body?.code]).toEqual([403, 40302]);
    const create = await call(app, 'POST', '/admin/api/bot/create', { ...opts, json: { name: 'forged' } });
    expect([create.status, create.body?.code]).toEqual([403, 40302]);
    expect(await botName()).toBe('before');
    expect(await botCount()).toBe(before);
  });

  it("another session's CSRF token is refused", async () => {
    const other = await signIn(app);
    const r = await call(app, 'POST', '/admin/api/bot/update', {
      cookie: session.cookie,
      csrf: other.csrf,
      json: { id: bot.id, name: 'forged' },
    });
    expect(r.status).toBe(403);
    expect(await botName()).toBe('before');
  });

  it("with its session's CSRF token, the change is made", async () => {
    const r = await call(app, 'POST', '/admin/api/bot/update', {
      cookie: session.cookie,
      csrf: session.csrf,
      json: { id: bot.id, name: 'changed by the console' },
    });
    expect([r.status, r.body?.code]).toEqual([200, 0]);
    expect(await botName()).toBe('changed by the console');
  });

  it('a refused state change is answered before its body is read', async () => {
    const r = await rawRequest(
      app.base,
      'POST /admin/api/bot/create HTTP/1.1\r\nHost: herald\r\nContent-Type: application/json\r\n' +
        `Cookie: herald_console=${session.cookie}\r\nContent-Length: 1000\r\n\r\n{"name":"`,
    );
    expect([r.status, JSON.parse(r.text).code, r.headers.connection]).toEqual([403, 40302, 'close']);
  });

  it('an unknown or missing cookie is 401, as without credentials', async () => {
    for (const cookie of [undefined, 'A'.repeat(43)]) {
      const r = await call(app, 'POST', '/admin/api/bot/create', {
        ...(cookie === undefined ? {} : { cookie }),
        csrf: session.csrf,
        json: { name: 'x' },
      });
      expect([r.status, r.body?.code]).toEqual([401, 40100]);
    }
  });
});

describe('Bearer keeps working as before', () => {
  it('needs no CSRF token', async () => {
    const r = await app.request('POST', '/admin/api/bot/update', {
      admin: true,
      json: { id: bot.id, name: 'script' },
    });
    expect([r.status, r.body.code]).toEqual([200, 0]);
    expect(await botName()).toBe('script');
  });

  it('a wrong Bearer is 401 INVALID_TOKEN even beside a valid cookie', async () => {
    const r = await call(app, 'GET', '/admin/api/bot/list', {
      cookie: session.cookie,
      headers: { Authorization: 'Bearer wrong-token-0123456789abcdef' },
    });
    expect([r.status, r.body?.code]).toEqual([401, 40101]);
  });
});

describe('CONSOLE=off', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await startTestApp('console_csrf_off', { CONSOLE: 'off' }, { sharedWith: app });
  });
  afterAll(() => off?.close());

  it('a session cookie is not honoured', async () => {
    const r = await call(off, 'GET', '/admin/api/bot/list', { cookie: session.cookie });
    expect([r.status, r.body?.code]).toEqual([401, 40100]);
    expect((await off.request('GET', '/admin/api/bot/list', { admin: true })).status).toBe(200);
  });
});
