import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, keysOf, signIn, useConsoleDir } from '../../helpers/console.js';
import { createTestBot, startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../../helpers/test-app.js';

/**
 * Bot sessions (src/api/console/session.ts, session-store.ts, auth.ts): a bot developer signs in
 * to the console with the bot's token and reaches the template studio only.
 */
const dir = useConsoleDir();
let app: TestApp;
let bot: { id: string; token: string };

beforeAll(async () => {
  app = await startTestApp('console_bot_session', { CONSOLE_DIR: dir });
  bot = await createTestBot(app, { name: 'studio bot' });
});
afterAll(() => app?.close());

/** Each test starts with no failed sign-ins on record for the loopback address. */
beforeEach(async () => {
  const keys = await keysOf(app, 'console:sign-in-failures:*');
  if (keys.length > 0) await app.res.redis.del(...keys);
});

const sessionKey = (cookie: string) =>
  `${app.config.redisPrefix}:console:session:${createHash('sha256').update(cookie).digest('hex')}`;
const botSignIn = (token = bot.token) => signIn(app, token, 'bot');
const setBot = async (json: Record<string, unknown>) => {
  const r = await app.request('POST', '/admin/api/bot/update', { admin: true, json });
  if (r.status !== 200) throw new Error(r.text);
};

describe('signing in with a bot token', () => {
  it("answers role 'bot' and the bot's id and name, on sign-in and on GET", async () => {
    const { cookie, csrf, answer } = await botSignIn();
    expect(answer.body?.data).toEqual({
      csrf_token: csrf,
      idle_timeout_s: 1800,
      role: 'bot',
      bot: { id: bot.id, name: 'studio bot' },
    });
    const r = await call(app, 'GET', '/console/api/session', { cookie });
    expect([r.status, r.body?.data]).toEqual([200, answer.body?.data]);
    // The operator's answer says operator, and names no bot.
    const op = await signIn(app);
    expect(op.answer.body?.data).toEqual({ csrf_token: op.csrf, idle_timeout_s: 1800, role: 'operator' });
  });

  it("keeps the bot's id and a fingerprint of its stored token hash, never the token or its hash", async () => {
    const { cookie } = await botSignIn();
    const raw = (await app.res.redis.get(sessionKey(cookie))) ?? '';
    const stored = JSON.parse(raw) as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(['bot_id', 'created_at', 'csrf_token', 'role', 'token_mac']);
    expect(stored).toMatchObject({ role: 'bot', bot_id: bot.id });
    expect(raw).not.toContain(bot.token);
    for (const enc of ['hex', 'base64', 'base64url'] as const) {
      expect(raw).not.toContain(createHash('sha256').update(bot.token).digest(enc));
    }
  });

  it('never logs the bot token, signed in or refused', async () => {
    const { cookie, csrf } = await botSignIn();
    await call(app, 'POST', '/console/api/session', { json: { token: `${bot.token}x`, kind: 'bot' } });
    await call(app, 'POST', '/console/api/session', { json: { token: bot.token } });
    await call(app, 'POST', '/admin/api/template/render', { cookie, csrf, json: { content: 'x' } });
    const secret = bot.token.split('.')[1] as string;
    expect(secret.length).toBeGreaterThan(20);
    expect(app.logs.some((l) => l.route === '/console/api/session')).toBe(true);
    expect(app.logText()).not.toContain(secret);
  });

  it('a bot token without kind is not an operator token (401), nor is the admin token a bot token', async () => {
    const asOperator = await call(app, 'POST', '/console/api/session', { json: { token: bot.token } });
    expect([asOperator.status, asOperator.body?.code]).toEqual([401, 40101]);
    const asBot = await call(app, 'POST', '/console/api/session', {
      json: { token: TEST_ADMIN_TOKEN, kind: 'bot' },
    });
    expect([asBot.status, asBot.body?.code]).toEqual([401, 40101]);
    expect(asBot.headers.get('set-cookie')).toBeNull();
    const wrongKind = await call(app, 'POST', '/console/api/session', {
      json: { token: bot.token, kind: 'x' },
    });
    expect([wrongKind.status, wrongKind.body?.code]).toEqual([400, 40000]);
    expect(wrongKind.body?.message).toContain('kind');
  });

  it("a disabled bot's token signs nothing in (403), and a disabled bot's session ends", async () => {
    const other = await createTestBot(app, { name: 'soon disabled' });
    const { cookie } = await signIn(app, other.token, 'bot');
    await setBot({ id: other.id, enabled: false });
    try {
      const r = await call(app, 'POST', '/console/api/session', {
        json: { token: other.token, kind: 'bot' },
      });
      expect([r.status, r.body?.code]).toEqual([403, 40300]);
      const s = await call(app, 'GET', '/console/api/session', { cookie });
      expect([s.status, s.body?.code]).toEqual([401, 40100]);
      expect(await app.res.redis.exists(sessionKey(cookie))).toBe(0);
    } finally {
      await setBot({ id: other.id, enabled: true });
    }
  });

  it('wrong bot tokens count against the sign-in throttle like wrong operator tokens', async () => {
    const wrong = `hrb_${bot.id}.${'A'.repeat(43)}`;
    for (let i = 0; i < 5; i++) {
      const r = await call(app, 'POST', '/console/api/session', { json: { token: wrong, kind: 'bot' } });
      expect(r.status).toBe(401);
    }
    const throttled = await call(app, 'POST', '/console/api/session', {
      json: { token: bot.token, kind: 'bot' },
    });
    expect([throttled.status, throttled.body?.code]).toEqual([429, 42901]);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("a bot's right token takes back only its own try, not the address's failed operator tries", async () => {
    // Anyone holding some bot's token must not be able to clear the count between guesses of
    // the operators' token: 4 wrong guesses, a bot sign-in, 1 more is the 5th failure.
    const guess = () => call(app, 'POST', '/console/api/session', { json: { token: 'x'.repeat(32) } });
    for (let i = 0; i < 4; i++) expect((await guess()).status).toBe(401);
    await botSignIn();
    expect((await guess()).status).toBe(401);
    const refused = await guess();
    expect([refused.status, refused.body?.code]).toEqual([429, 42901]);
  });

  it("a bot's right token after wrong bot tries leaves them counted; repeated sign-ins count nothing", async () => {
    for (let i = 0; i < 10; i++) await botSignIn();
    const [key] = await keysOf(app, 'console:sign-in-failures:*');
    expect(key === undefined ? 0 : Number(await app.res.redis.get(key))).toBe(0);
    const wrong = `hrb_${bot.id}.${'B'.repeat(43)}`;
    for (let i = 0; i < 2; i++) {
      await call(app, 'POST', '/console/api/session', { json: { token: wrong, kind: 'bot' } });
    }
    await botSignIn();
    const [after] = await keysOf(app, 'console:sign-in-failures:*');
    expect(Number(await app.res.redis.get(after!))).toBe(2);
  });

  it('another site cannot sign a bot in: refused before it is counted', async () => {
    const r = await call(app, 'POST', '/console/api/session', {
      json: { token: bot.token, kind: 'bot' },
      headers: { Origin: 'https://evil.example' },
    });
    expect([r.status, r.body?.code]).toEqual([403, 40303]);
    expect(await keysOf(app, 'console:sign-in-failures:*')).toEqual([]);
  });
});

describe('a bot session ends with its token', () => {
  it("ends when the bot's token is rotated (401, session deleted), on the studio and on GET", async () => {
    const b = await createTestBot(app, { name: 'rotating' });
    const first = await signIn(app, b.token, 'bot');
    const second = await signIn(app, b.token, 'bot');
    expect((await call(app, 'GET', '/admin/api/template/list', { cookie: first.cookie })).status).toBe(200);
    const rotated = await app.request<{ token: string }>('POST', '/admin/api/bot/rotate-token', {
      admin: true,
      json: { id: b.id },
    });
    expect(rotated.status).toBe(200);
    const r = await call(app, 'GET', '/console/api/session', { cookie: first.cookie });
    expect([r.status, r.body?.code]).toEqual([401, 40100]);
    expect(await app.res.redis.exists(sessionKey(first.cookie))).toBe(0);
    const studio = await call(app, 'GET', '/admin/api/template/list', { cookie: second.cookie });
    expect([studio.status, studio.body?.code]).toEqual([401, 40100]);
    expect(await app.res.redis.exists(sessionKey(second.cookie))).toBe(0);
    // The old token signs in no more; the new one does.
    const old = await call(app, 'POST', '/console/api/session', { json: { token: b.token, kind: 'bot' } });
    expect(old.status).toBe(401);
    const fresh = await signIn(app, rotated.body.data.token, 'bot');
    expect((await call(app, 'GET', '/admin/api/template/list', { cookie: fresh.cookie })).status).toBe(200);
  });

  it('ends when its bot is gone', async () => {
    const { cookie } = await botSignIn();
    // No route deletes a bot: a session naming a bot the store does not have stands for one.
    const key = sessionKey(cookie);
    const stored = JSON.parse((await app.res.redis.get(key)) ?? '{}') as Record<string, unknown>;
    stored.bot_id = '999999999999';
    await app.res.redis.set(key, JSON.stringify(stored), 'KEEPTTL');
    const r = await call(app, 'GET', '/console/api/session', { cookie });
    expect([r.status, r.body?.code]).toEqual([401, 40100]);
    expect(await app.res.redis.exists(sessionKey(cookie))).toBe(0);
  });

  it('an operator session kept from before roles (no role stored) is still an operator', async () => {
    const { cookie } = await signIn(app);
    const key = sessionKey(cookie);
    const stored = JSON.parse((await app.res.redis.get(key)) ?? '{}') as Record<string, unknown>;
    delete stored.role;
    await app.res.redis.set(key, JSON.stringify(stored), 'KEEPTTL');
    const r = await call(app, 'GET', '/console/api/session', { cookie });
    expect([r.status, r.body?.data.role]).toEqual([200, 'operator']);
    expect((await call(app, 'GET', '/admin/api/bot/list', { cookie })).status).toBe(200);
  });

  it("a session whose role says bot but whose fingerprint is an operator's does not hold", async () => {
    const { cookie } = await signIn(app);
    const key = sessionKey(cookie);
    const stored = JSON.parse((await app.res.redis.get(key)) ?? '{}') as Record<string, unknown>;
    Object.assign(stored, { role: 'bot', bot_id: bot.id });
    await app.res.redis.set(key, JSON.stringify(stored), 'KEEPTTL');
    expect((await call(app, 'GET', '/console/api/session', { cookie })).status).toBe(401);
  });
});

describe('what a bot session may reach', () => {
  it.each([
    ['GET', '/admin/api/bot/list'],
    ['GET', `/admin/api/pipe/list`],
    ['GET', '/admin/api/delivery/list?stage=dead'],
    ['GET', '/admin/api/overview'],
    ['POST', '/admin/api/bot/create'],
    ['POST', '/admin/api/template/review'],
  ])('%s %s is 403 FORBIDDEN', async (method, path) => {
    const { cookie, csrf } = await botSignIn();
    const r = await call(app, method, path, { cookie, csrf, json: method === 'POST' ? {} : undefined });
    expect([r.status, r.body?.code]).toEqual([403, 40300]);
  });

  it('the queue browser is refused too (403)', async () => {
    const { cookie } = await botSignIn();
    const r = await call(
      app,
      'GET',
      '/console/queues/api/queues?activeQueue=pipe-messages&status=latest&page=1',
      {
        cookie,
      },
    );
    expect(r.status).toBe(403);
  });

  it('the studio answers it; a state change needs its CSRF token', async () => {
    const { cookie, csrf } = await botSignIn();
    const list = await call(app, 'GET', '/admin/api/template/list', { cookie });
    expect([list.status, list.body?.code]).toEqual([200, 0]);
    const json = { title: 'from the studio', content: 'hi {{ data.x }}' };
    for (const bad of [undefined, 'x'.repeat(43)]) {
      const r = await call(app, 'POST', '/admin/api/template/create', { cookie, csrf: bad, json });
      expect([r.status, r.body?.code]).toEqual([403, 40302]);
    }
    // Another bot session's CSRF token is not this one's.
    const other = await botSignIn();
    const crossed = await call(app, 'POST', '/admin/api/template/create', { cookie, csrf: other.csrf, json });
    expect(crossed.status).toBe(403);
    expect(
      (await app.request('GET', `/admin/api/template/list?bot_id=${bot.id}`, { admin: true })).text,
    ).not.toContain('from the studio');
    const ok = await call(app, 'POST', '/admin/api/template/create', { cookie, csrf, json });
    expect([ok.status, ok.body?.code]).toEqual([200, 0]);
    expect(ok.body?.data.model).toMatchObject({ title: 'from the studio', bot_id: bot.id, status: 0 });
  });

  it.each([
    '/admin/api/template/create',
    '/admin/api/template/update',
    '/admin/api/template/duplicate',
    '/admin/api/template/delete',
    '/admin/api/template/render',
    '/admin/api/template/send-test',
    '/admin/api/template/submit',
    '/admin/api/gallery/use',
    '/admin/api/pipe/captures/clear',
  ])('POST %s without its CSRF token is refused before its body is read', async (path) => {
    const { cookie } = await botSignIn();
    const r = await call(app, 'POST', path, { cookie, json: { id: 'x' } });
    expect([r.status, r.body?.code]).toEqual([403, 40302]);
  });

  it('signs out with its CSRF token', async () => {
    const { cookie, csrf } = await botSignIn();
    expect((await call(app, 'DELETE', '/console/api/session', { cookie })).status).toBe(403);
    expect((await call(app, 'DELETE', '/console/api/session', { cookie, csrf })).status).toBe(200);
    expect((await call(app, 'GET', '/admin/api/template/list', { cookie })).status).toBe(401);
  });
});
