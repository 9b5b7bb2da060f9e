import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, keysOf, type SignedIn, signIn, useConsoleDir } from '../../helpers/console.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../../helpers/test-app.js';

/** Sign-in, session and sign-out (src/api/console/session.ts). */
const dir = useConsoleDir();
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp('console_session', { CONSOLE_DIR: dir });
});
afterAll(() => app?.close());

/** Each test starts with no failed sign-ins on record for the loopback address. */
beforeEach(async () => {
  const keys = await keysOf(app, 'console:sign-in-failures:*');
  if (keys.length > 0) await app.res.redis.del(...keys);
});

/** Polls `check` until it holds (no fixed sleeps); fails after `ms`. */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('sign-in', () => {
  it('trades the token for an HttpOnly, SameSite=Strict session cookie and a CSRF token', async () => {
    const { cookie, csrf, answer } = await signIn(app);
    expect(answer.body).toMatchObject({
      code: 0,
      data: { csrf_token: csrf, idle_timeout_s: 1800, role: 'operator' },
    });
    expect(answer.body?.data).not.toHaveProperty('bot');
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(answer.headers.get('set-cookie')).toBe(
      `herald_console=${cookie}; Path=/; HttpOnly; SameSite=Strict`,
    );
    // Redis keeps the session under the SHA-256 of the cookie, never the cookie itself.
    const keys = await keysOf(app, 'console:session:*');
    expect(keys.some((k) => k.includes(cookie))).toBe(false);
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(cookie).digest('hex');
    expect(keys).toContain(`${app.config.redisPrefix}:console:session:${hash}`);
    expect(await app.res.redis.get(`${app.config.redisPrefix}:console:session:${hash}`)).not.toContain(
      cookie,
    );
  });

  it('GET /console/api/session reads the session back; without a valid cookie it is 401', async () => {
    const { cookie, csrf } = await signIn(app);
    const r = await call(app, 'GET', '/console/api/session', { cookie });
    expect([r.status, r.body?.data]).toEqual([
      200,
      { csrf_token: csrf, idle_timeout_s: 1800, role: 'operator' },
    ]);
    for (const c of [undefined, 'x'.repeat(43), 'not a cookie']) {
      const none = await call(app, 'GET', '/console/api/session', c === undefined ? {} : { cookie: c });
      expect([none.status, none.body?.code]).toEqual([401, 40100]);
    }
  });

  it('each session has its own cookie and CSRF token', async () => {
    const a = await signIn(app);
    const b = await signIn(app);
    expect(a.cookie).not.toBe(b.cookie);
    expect(a.csrf).not.toBe(b.csrf);
  });

  it('a wrong token is 401 INVALID_TOKEN with a message, and no cookie', async () => {
    const r = await call(app, 'POST', '/console/api/session', {
      json: { token: 'wrong-token-0123456789abcdef' },
    });
    expect([r.status, r.body?.code, r.body?.message]).toEqual([401, 40101, 'Invalid token']);
    expect(r.headers.get('set-cookie')).toBeNull();
  });

  it.each([
    [{}, 400],
    [{ token: 42 }, 400],
    [{ token: '' }, 400],
  ])('a body %j is refused (%i) and counts as a failure', async (json, status) => {
    const r = await call(app, 'POST', '/console/api/session', { json });
    expect(r.status).toBe(status);
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(await keysOf(app, 'console:sign-in-failures:*')).toHaveLength(1);
  });

  it('a sign-in body bigger than a token is not read (413)', async () => {
    const r = await call(app, 'POST', '/console/api/session', { json: { token: 'x'.repeat(8000) } });
    expect([r.status, r.body?.code]).toEqual([413, 41300]);
  });
});

describe('what another site could send is refused before it counts', () => {
  const failures = async () => (await keysOf(app, 'console:sign-in-failures:*')).length;
  const post = (headers: Record<string, string>, body?: string) =>
    fetch(`${app.base}/console/api/session`, {
      method: 'POST',
      headers: { 'Accept-Language': 'en-US', ...headers },
      body,
    });
  const token = JSON.stringify({ token: 'wrong-token-0123456789abcdef' });

  // The content types a page may POST cross-site without a preflight (a form, no-cors fetch).
  it.each([
    ['text/plain', token],
    ['text/plain;charset=UTF-8', token],
    ['application/x-www-form-urlencoded', 'token=wrong-token-0123456789abcdef'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="token"\r\n\r\nw\r\n--x--\r\n',
    ],
    ['application/vnd.api+json', token],
  ])('Content-Type %s is 415 and not counted', async (type, body) => {
    const r = await post({ 'Content-Type': type }, body);
    expect([r.status, ((await r.json()) as { code: number }).code]).toEqual([415, 41500]);
    expect(await failures()).toBe(0);
  });

  it('a POST without a body or a Content-Type is 415 and not counted', async () => {
    const r = await post({});
    expect(r.status).toBe(415);
    expect(await failures()).toBe(0);
  });

  it.each([
    [{ 'Sec-Fetch-Site': 'cross-site' }],
    [{ 'Sec-Fetch-Site': 'same-site' }],
    [{ Origin: 'https://evil.example' }],
    [{ Origin: 'null' }],
    [{ Origin: 'http://127.0.0.1:1' }],
  ])('a JSON sign-in from another site (%j) is 403 CROSS_SITE_REJECTED and not counted', async (headers) => {
    const r = await post({ 'Content-Type': 'application/json', ...headers }, token);
    const body = (await r.json()) as { code: number; message: string };
    expect([r.status, body.code]).toEqual([403, 40303]);
    expect(body.message).toBe("Refused: a sign-in must come from the console's own page");
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(await failures()).toBe(0);
  });

  it("the console's own page (same origin, by Host or PUBLIC_URL) is let through, and counted", async () => {
    const own: Record<string, string>[] = [
      { 'Sec-Fetch-Site': 'same-origin', Origin: app.base },
      { 'Sec-Fetch-Site': 'none' },
      { Origin: new URL(app.config.publicUrl).origin },
    ];
    for (const headers of own) {
      const r = await post({ 'Content-Type': 'application/json; charset=utf-8', ...headers }, token);
      expect(r.status).toBe(401);
    }
    expect(await failures()).toBe(1);
    const r = await post(
      { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'same-origin', Origin: app.base },
      JSON.stringify({ token: TEST_ADMIN_TOKEN }),
    );
    expect(r.status).toBe(200);
  });

  it('however many such tries another site makes, the operator still signs in', async () => {
    for (let i = 0; i < 10; i++) {
      await post({ 'Content-Type': 'text/plain' }, token);
      await post({ 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' }, token);
    }
    expect(await failures()).toBe(0);
    expect((await signIn(app)).answer.status).toBe(200);
  });
});

describe('throttling per client address', () => {
  const wrong = () =>
    call(app, 'POST', '/console/api/session', { json: { token: 'wrong-token-0123456789abcdef' } });
  const right = () => call(app, 'POST', '/console/api/session', { json: { token: TEST_ADMIN_TOKEN } });

  it('after 5 failures in the window, further tries get 429 with a growing Retry-After, the right token too', async () => {
    for (let i = 0; i < 5; i++) expect((await wrong()).status).toBe(401);
    const first = await right();
    expect([first.status, first.body?.code]).toEqual([429, 42901]);
    expect(first.headers.get('set-cookie')).toBeNull();
    const waits = [Number(first.headers.get('retry-after'))];
    expect(waits[0]).toBeGreaterThan(500);
    expect(waits[0]).toBeLessThanOrEqual(600);
    expect(first.body?.message).toBe(`Too many failed sign-ins; try again in ${waits[0]} s`);
    for (let i = 0; i < 5; i++) {
      const r = await wrong();
      expect(r.status).toBe(429);
      waits.push(Number(r.headers.get('retry-after')));
    }
    // Each try while refused lengthens the wait: past the window, up to the cap.
    expect(waits.at(-1)).toBeGreaterThan(600);
    expect(waits.at(-1)).toBeLessThanOrEqual(3600);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual((waits[i - 1] ?? 0) - 1);
  });

  it('tries sent at once cannot outrun the count', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, wrong));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('once the window has passed, the right token signs in again', async () => {
    for (let i = 0; i < 5; i++) await wrong();
    expect((await right()).status).toBe(429);
    // The window passing, without waiting ten minutes: its key expires now.
    const [key] = await keysOf(app, 'console:sign-in-failures:*');
    await app.res.redis.pexpire(key as string, 1);
    await until(async () => (await keysOf(app, 'console:sign-in-failures:*')).length === 0);
    expect((await right()).status).toBe(200);
  });

  it('a right token forgets the failures before it', async () => {
    for (let i = 0; i < 4; i++) await wrong();
    expect((await right()).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await wrong()).status).toBe(401);
  });

  it('a refused address is answered before its body is read', async () => {
    for (let i = 0; i < 5; i++) await wrong();
    const r = await rawRequest(
      app.base,
      'POST /console/api/session HTTP/1.1\r\nHost: herald\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tok',
    );
    expect([r.status, JSON.parse(r.text).code, r.headers.connection]).toEqual([429, 42901, 'close']);
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('the client address behind a reverse proxy', () => {
  const tryFrom = (target: TestApp, forwardedFor: string, token = 'wrong-token-0123456789abcdef') =>
    call(target, 'POST', '/console/api/session', {
      json: { token },
      headers: { 'X-Forwarded-For': forwardedFor },
    });

  it('by default X-Forwarded-For is ignored: every try counts against the TCP peer', async () => {
    for (let i = 0; i < 5; i++) expect((await tryFrom(app, `203.0.113.${i}`)).status).toBe(401);
    expect((await tryFrom(app, '203.0.113.99', TEST_ADMIN_TOKEN)).status).toBe(429);
  });

  describe('with TRUST_PROXY=on', () => {
    let proxied: TestApp;
    beforeAll(async () => {
      proxied = await startTestApp('console_proxied', { CONSOLE_DIR: dir, TRUST_PROXY: 'on' });
    });
    afterAll(() => proxied?.close());
    beforeEach(async () => {
      const keys = await keysOf(proxied, 'console:sign-in-failures:*');
      if (keys.length > 0) await proxied.res.redis.del(...keys);
    });

    it("counts the address the proxy adds, so one client's failures do not lock out another", async () => {
      for (let i = 0; i < 5; i++) expect((await tryFrom(proxied, '203.0.113.7')).status).toBe(401);
      expect((await tryFrom(proxied, '203.0.113.7', TEST_ADMIN_TOKEN)).status).toBe(429);
      expect((await tryFrom(proxied, '203.0.113.8', TEST_ADMIN_TOKEN)).status).toBe(200);
    });

    it('only the last TRUST_PROXY_HOPS entries count: a client cannot pick its own address', async () => {
      for (let i = 0; i < 5; i++) await tryFrom(proxied, `198.51.100.${i}, 203.0.113.7`);
      expect((await tryFrom(proxied, '192.0.2.1, 203.0.113.7', TEST_ADMIN_TOKEN)).status).toBe(429);
    });

    it('keys an IPv6 client by its /64, which one host usually holds whole', async () => {
      for (let i = 1; i <= 5; i++) await tryFrom(proxied, `2001:db8:1:2::${i}`);
      expect((await tryFrom(proxied, '2001:DB8:1:2:ffff:1:2:3', TEST_ADMIN_TOKEN)).status).toBe(429);
      expect((await tryFrom(proxied, '2001:db8:1:3::1', TEST_ADMIN_TOKEN)).status).toBe(200);
      expect(await keysOf(proxied, 'console:sign-in-failures:*')).toEqual([
        `${proxied.config.redisPrefix}:console:sign-in-failures:2001:db8:1:2::/64`,
      ]);
    });
  });
});

describe('sign-out', () => {
  it('DELETE with the CSRF token ends the session and clears the cookie', async () => {
    const { cookie, csrf } = await signIn(app);
    const r = await call(app, 'DELETE', '/console/api/session', { cookie, csrf });
    expect([r.status, r.body?.code]).toEqual([200, 0]);
    expect(r.headers.get('set-cookie')).toBe('herald_console=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict');
    expect((await call(app, 'GET', '/console/api/session', { cookie })).status).toBe(401);
    expect((await call(app, 'GET', '/admin/api/bot/list', { cookie })).status).toBe(401);
  });

  it("DELETE without the CSRF token, or with another session's, is 403 and the session lives on", async () => {
    const { cookie } = await signIn(app);
    const other = await signIn(app);
    for (const csrf of [undefined, '', other.csrf, 'forged']) {
      const r = await call(
        app,
        'DELETE',
        '/console/api/session',
        csrf === undefined ? { cookie } : { cookie, csrf },
      );
      expect([r.status, r.body?.code]).toEqual([403, 40302]);
      expect(r.headers.get('set-cookie')).toBeNull();
    }
    expect((await call(app, 'GET', '/console/api/session', { cookie })).status).toBe(200);
  });

  it('signing in again ends the session the browser had', async () => {
    const first = await signIn(app);
    const r = await call(app, 'POST', '/console/api/session', {
      cookie: first.cookie,
      json: { token: TEST_ADMIN_TOKEN },
    });
    expect(r.status).toBe(200);
    expect((await call(app, 'GET', '/console/api/session', { cookie: first.cookie })).status).toBe(401);
  });
});

describe("a session is bound to the operators' token and to a lifetime", () => {
  const keyOf = async (cookie: string): Promise<string> => {
    const { createHash } = await import('node:crypto');
    return `${app.config.redisPrefix}:console:session:${createHash('sha256').update(cookie).digest('hex')}`;
  };
  /** Rewrites what Redis keeps of a session (its expiry kept). */
  const edit = async (cookie: string, change: (s: Record<string, unknown>) => void): Promise<void> => {
    const key = await keyOf(cookie);
    const stored = JSON.parse((await app.res.redis.get(key)) ?? 'null') as Record<string, unknown>;
    change(stored);
    await app.res.redis.set(key, JSON.stringify(stored), 'KEEPTTL');
  };

  it('keeps a fingerprint of the token, never the token or its plain hash', async () => {
    const { cookie } = await signIn(app);
    const raw = (await app.res.redis.get(await keyOf(cookie))) ?? '';
    const { createHash } = await import('node:crypto');
    expect(raw).not.toContain(TEST_ADMIN_TOKEN);
    for (const enc of ['hex', 'base64', 'base64url'] as const) {
      expect(raw).not.toContain(createHash('sha256').update(TEST_ADMIN_TOKEN).digest(enc));
    }
    expect(Object.keys(JSON.parse(raw)).sort()).toEqual(['created_at', 'csrf_token', 'role', 'token_mac']);
  });

  it('a change of ADMIN_TOKEN ends the sessions signed in with the old one (401, session deleted)', async () => {
    const old = await signIn(app);
    const other = await signIn(app);
    const rotated = await startTestApp(
      'console_rotated',
      { CONSOLE_DIR: dir, ADMIN_TOKEN: 'rotated-admin-token-0123456789abcdef' },
      { sharedWith: app },
    );
    try {
      const r = await call(rotated, 'GET', '/console/api/session', { cookie: old.cookie });
      expect([r.status, r.body?.code]).toEqual([401, 40100]);
      expect(await app.res.redis.exists(await keyOf(old.cookie))).toBe(0);
      // The admin API, which reads the cookie in auth.ts, refuses it too.
      expect((await call(rotated, 'GET', '/admin/api/bot/list', { cookie: other.cookie })).status).toBe(401);
      expect(await app.res.redis.exists(await keyOf(other.cookie))).toBe(0);
      // A session signed in with the new token works on it, and not where the old token is set.
      const fresh = await signIn(rotated, 'rotated-admin-token-0123456789abcdef');
      expect((await call(rotated, 'GET', '/admin/api/bot/list', { cookie: fresh.cookie })).status).toBe(200);
      expect((await call(app, 'GET', '/console/api/session', { cookie: fresh.cookie })).status).toBe(401);
    } finally {
      await rotated.close();
    }
  });

  it('a session kept from before fingerprints (none stored) is refused', async () => {
    const { cookie } = await signIn(app);
    await edit(cookie, (s) => {
      delete s.token_mac;
    });
    expect((await call(app, 'GET', '/console/api/session', { cookie })).status).toBe(401);
  });

  it('ends CONSOLE_SESSION_MAX_S (12 h) after sign-in, however often it is used', async () => {
    expect(app.config.consoleSessionMaxS).toBe(43_200);
    const { cookie } = await signIn(app);
    await edit(cookie, (s) => {
      s.created_at = Date.now() - 43_200_000 + 60_000;
    });
    expect((await call(app, 'GET', '/console/api/session', { cookie })).status).toBe(200);
    expect((await call(app, 'GET', '/admin/api/bot/list', { cookie })).status).toBe(200);
    await edit(cookie, (s) => {
      s.created_at = Date.now() - 43_200_000 - 1;
    });
    const r = await call(app, 'GET', '/admin/api/bot/list', { cookie });
    expect([r.status, r.body?.code]).toEqual([401, 40100]);
    expect(await app.res.redis.exists(await keyOf(cookie))).toBe(0);
  });
});

describe('idle expiry', () => {
  let short: TestApp;
  beforeAll(async () => {
    short = await startTestApp('console_idle', { CONSOLE_DIR: dir, CONSOLE_SESSION_IDLE_S: '3' });
  });
  afterAll(() => short?.close());

  const ttlOf = async (): Promise<number> => {
    const [key] = await keysOf(short, 'console:session:*');
    return key === undefined ? -2 : short.res.redis.pttl(key);
  };

  it('each authenticated call renews the idle expiry; unused, the session ends', async () => {
    const { cookie, answer } = await signIn(short);
    expect(answer.body?.data.idle_timeout_s).toBe(3);
    await until(async () => (await ttlOf()) < 2000);
    expect((await call(short, 'GET', '/admin/api/bot/list', { cookie })).status).toBe(200);
    expect(await ttlOf()).toBeGreaterThan(2000);
    await until(async () => (await ttlOf()) < 2000);
    expect((await call(short, 'GET', '/console/api/session', { cookie })).status).toBe(200);
    expect(await ttlOf()).toBeGreaterThan(2000);
    // Left alone, it expires.
    await until(async () => (await ttlOf()) === -2);
    const r = await call(short, 'GET', '/console/api/session', { cookie });
    expect([r.status, r.body?.code]).toEqual([401, 40100]);
    expect((await call(short, 'GET', '/admin/api/bot/list', { cookie })).status).toBe(401);
  });
});

describe('the Secure attribute', () => {
  let https: TestApp;
  beforeAll(async () => {
    https = await startTestApp('console_https', {
      CONSOLE_DIR: dir,
      PUBLIC_URL: 'https://herald.example.com',
    });
  });
  afterAll(() => https?.close());

  it('is set when PUBLIC_URL is https (TLS ending at a proxy in front), on sign-in and sign-out', async () => {
    const { cookie, csrf, answer } = await signIn(https);
    // The __Host- prefix: a browser takes the cookie only with Secure, Path=/ and no Domain, so a
    // sibling subdomain cannot set one of that name to overwrite or shadow it.
    expect(answer.headers.get('set-cookie')).toBe(
      `__Host-herald_console=${cookie}; Path=/; HttpOnly; SameSite=Strict; Secure`,
    );
    const cookieName = '__Host-herald_console';
    expect((await call(https, 'GET', '/console/api/session', { cookie, cookieName })).status).toBe(200);
    expect((await call(https, 'GET', '/admin/api/bot/list', { cookie, cookieName })).status).toBe(200);
    // The unprefixed name, which another subdomain could set, is not read.
    expect((await call(https, 'GET', '/console/api/session', { cookie })).status).toBe(401);
    expect((await call(https, 'GET', '/admin/api/bot/list', { cookie })).status).toBe(401);
    const out = await call(https, 'DELETE', '/console/api/session', { cookie, cookieName, csrf });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toBe(
      '__Host-herald_console=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict; Secure',
    );
  });

  it('without https the cookie keeps its plain name, and the __Host- one is not read', async () => {
    const { cookie } = await signIn(app);
    const r = await call(app, 'GET', '/console/api/session', { cookie, cookieName: '__Host-herald_console' });
    expect(r.status).toBe(401);
  });
});

describe('while Redis is unreachable', () => {
  let proxy: TcpProxy;
  let down: TestApp;
  let session: SignedIn;
  beforeAll(async () => {
    const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    proxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
    down = await startTestApp('console_down', {
      CONSOLE_DIR: dir,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      DB_TIMEOUT_MS: '300',
    });
    session = await signIn(down);
  });
  afterAll(async () => {
    proxy?.restore();
    // Back on Redis before close(), which deletes the file's keys there.
    await until(async () => (await down?.res.redis.ping().catch(() => 'down')) === 'PONG');
    await down?.close();
    await proxy?.close();
  });

  it('sign-in and cookie calls answer 503 (not 401: the session is not lost), and recover', async () => {
    proxy.cut();
    const { cookie, csrf } = session;
    await expect
      .poll(async () => (await call(down, 'GET', '/console/api/session', { cookie })).status)
      .toBe(503);
    const tries = [
      await call(down, 'POST', '/console/api/session', { json: { token: TEST_ADMIN_TOKEN } }),
      await call(down, 'GET', '/admin/api/bot/list', { cookie }),
      await call(down, 'DELETE', '/console/api/session', { cookie, csrf }),
    ];
    expect(tries.map((r) => [r.status, r.body?.code])).toEqual([
      [503, 50300],
      [503, 50300],
      [503, 50300],
    ]);
    proxy.restore();
    await expect
      .poll(async () => (await call(down, 'GET', '/console/api/session', { cookie })).status, {
        timeout: 10_000,
      })
      .toBe(200);
  });
});
