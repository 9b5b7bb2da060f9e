import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { TEST_ADMIN_TOKEN, type TestApp } from './test-app.js';

/** The fake built console's files, as a test reads them back. */
export const FAKE_INDEX =
  '<!doctype html><title>Herald console (test)</title><script type="module" src="/console/assets/app-1a2b3c.js"></script>';
export const FAKE_ASSET = 'export const built = true;\n';
export const FAKE_CSS = 'body { color: black; }\n';

/** A temporary built console (index.html, assets/), removed after the file. */
export function useConsoleDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-console-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), FAKE_INDEX);
  writeFileSync(join(dir, 'assets', 'app-1a2b3c.js'), FAKE_ASSET);
  writeFileSync(join(dir, 'assets', 'app-4d5e6f.css'), FAKE_CSS);
  // A file beside the console folder, for traversal tries.
  writeFileSync(join(dir, '..', `${dir.split('/').pop()}-secret.txt`), 'not for the web');
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}-secret.txt`, { force: true });
  });
  return dir;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The envelope, when the answer is JSON. */
  readonly body: { code: number; message: string; data: Record<string, unknown> } | undefined;
}

export interface CallOptions {
  /** The console's session cookie value. */
  readonly cookie?: string;
  /** The cookie's name: `herald_console` unless given (`__Host-herald_console` when Secure). */
  readonly cookieName?: string;
  readonly csrf?: string;
  readonly json?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Any request to the app, whatever its answer's type; redirects are not followed. */
export async function call(
  app: TestApp,
  method: string,
  path: string,
  o: CallOptions = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { 'Accept-Language': 'en-US', ...o.headers };
  if (o.cookie !== undefined) headers.Cookie = `${o.cookieName ?? 'herald_console'}=${o.cookie}`;
  if (o.csrf !== undefined) headers['X-CSRF-Token'] = o.csrf;
  let body: string | undefined;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['Content-Type'] = 'application/json';
  }
  const r = await fetch(app.base + path, { method, headers, body, redirect: 'manual' });
  const text = await r.text();
  let parsed: RawAnswer['body'];
  if ((r.headers.get('content-type') ?? '').startsWith('application/json')) parsed = JSON.parse(text);
  return { status: r.status, headers: r.headers, text, body: parsed };
}

export interface SignedIn {
  readonly cookie: string;
  readonly csrf: string;
  readonly answer: RawAnswer;
}

/** Signs in with the admin token (or `token`; a bot's with kind 'bot'); throws unless it worked. */
export async function signIn(
  app: TestApp,
  token = TEST_ADMIN_TOKEN,
  kind?: 'operator' | 'bot',
): Promise<SignedIn> {
  const answer = await call(app, 'POST', '/console/api/session', {
    json: kind === undefined ? { token } : { token, kind },
  });
  const setCookie = answer.headers.get('set-cookie') ?? '';
  const cookie = /^(?:__Host-)?herald_console=([^;]+)/.exec(setCookie)?.[1];
  if (answer.status !== 200 || cookie === undefined)
    throw new Error(`sign-in failed: ${answer.status} ${answer.text}`);
  return { cookie, csrf: String(answer.body?.data.csrf_token), answer };
}

/** Redis keys of the app's prefix matching `pattern` (after the prefix and a colon). */
export async function keysOf(app: TestApp, pattern: string): Promise<string[]> {
  return app.res.redis.keys(`${app.config.redisPrefix}:${pattern}`);
}
