import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import mongoose from 'mongoose';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { freePort, type Proc, startEntry, waitForOutput } from '../helpers/spawn.js';
import { uniqueName } from '../helpers/test-app.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Screenshots of each journey's last screen land here (ignored by git; CI keeps them). */
export const ARTIFACTS = `${root}test-artifacts/browser`;

/** Debian's chromium; CHROMIUM_PATH overrides it. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Without these, headless chromium stalls reaching for a network this machine does not have. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** How long a web or worker process may take to start (the machine may be busy). */
const START_TIMEOUT_MS = 120_000;

export interface Stack {
  baseUrl: string;
  adminToken: string;
  web: Proc;
  worker: Proc;
  /** Everything both processes wrote, to check that no secret was logged. */
  logs(): string;
  /** Calls the admin API with the operators' token, as a script would. */
  admin<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** A real web process and a real worker on the real Redis and store, with a fresh database and prefix. */
export async function startStack(name: string, env: Record<string, string> = {}): Promise<Stack> {
  const unique = uniqueName(name);
  const mongoBase = (process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/herald').replace(/\/[^/]*$/, '');
  const mongoUrl = `${mongoBase}/herald_test_${unique}`;
  const adminToken = randomBytes(24).toString('base64url');
  const common = {
    MONGO_URL: mongoUrl,
    REDIS_PREFIX: `herald-test-${unique}`,
    ADMIN_TOKEN: adminToken,
    ...env,
  };
  const worker = startEntry('worker', { ...common, METRICS_PORT: '0' });
  let web: Proc | undefined;
  let port = 0;
  let candidate: Proc | undefined;
  try {
    for (let attempt = 1; web === undefined; attempt++) {
      port = await freePort();
      // Pipe URLs the console shows are built on PUBLIC_URL: the address the web process listens on.
      candidate = startEntry('web', {
        ...common,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: `http://127.0.0.1:${port}`,
      });
      try {
        await waitForOutput(candidate, '"listening"', START_TIMEOUT_MS);
        web = candidate;
      } catch (err) {
        // Another socket can take the port between the check and the listen.
        if (attempt >= 3 || !candidate.out.join('').includes('EADDRINUSE')) throw err;
        await candidate.exited;
      }
    }
    await waitForOutput(worker, '"worker started"', START_TIMEOUT_MS);
  } catch (err) {
    // A process that did not start in time may still be starting: leave none behind.
    for (const p of [worker, candidate]) p?.child.kill('SIGKILL');
    throw err;
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = web;
  return {
    baseUrl,
    adminToken,
    web: started,
    worker,
    logs: () => [...started.out, ...started.err, ...worker.out, ...worker.err].join(''),
    async admin<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
      const res = await fetch(baseUrl + path, {
        method,
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const envelope = (await res.json()) as { code: number; message: string; data: T };
      if (envelope.code !== 0) throw new Error(`${method} ${path}: ${envelope.code} ${envelope.message}`);
      return envelope.data;
    },
    async stop() {
      for (const p of [started, worker]) p.child.kill('SIGTERM');
      await Promise.all([started.exited, worker.exited]);
      const conn = await mongoose.createConnection(mongoUrl).asPromise();
      await conn.dropDatabase();
      await conn.close();
    },
  };
}

/**
 * The file's stack and browser: started before its tests (then `ready` seeds what they share),
 * stopped after them, whatever happened. `env` goes to both processes (SECRETS_KEY, say).
 */
export function useStack(
  name: string,
  ready: (stack: Stack, browser: Browser) => void | Promise<void>,
  env: Record<string, string> = {},
): void {
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const [started, shared] = await Promise.all([startStack(name, env), sharedBrowser()]);
    stack = started;
    browser = shared;
    await ready(started, shared);
  });
  afterAll(async () => {
    // Files of one process run one at a time: every context open now is this file's. Left open,
    // its pages would go on refreshing (against a stack that is gone) through the next files.
    await Promise.all((browser?.contexts() ?? []).map((c) => c.close()));
    await stack?.stop();
  });
}

let browserOfProcess: Promise<Browser> | undefined;

/**
 * One chromium for every journey file this test process runs (they share a process: vitest's
 * `isolate: false`), each file's pages in contexts of their own (fresh cookies and storage).
 * Launched with a fresh temporary profile; it ends with the process (Playwright talks to it over
 * a pipe, which closes then).
 */
export function sharedBrowser(): Promise<Browser> {
  if (browserOfProcess === undefined) browserOfProcess = launchBrowser();
  // A browser that crashed or failed to start is launched again for the next file.
  return browserOfProcess.then(
    (browser) => {
      if (browser.isConnected()) return browser;
      browserOfProcess = undefined;
      return sharedBrowser();
    },
    (err: unknown) => {
      browserOfProcess = undefined;
      throw err;
    },
  );
}

/** A browser of its own, with a fresh temporary profile (the caller closes it). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** A console answer as the page received it: its URL, status and Content-Security-Policy. */
export interface ConsoleResponse {
  url: string;
  status: number;
  csp: string | undefined;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested. */
  urls: string[];
  /** The text of every console error (CSP violations among them). */
  consoleErrors: string[];
  /** Every answer the page got from under /console/ (read with their headers: await them). */
  consoleResponses: Promise<ConsoleResponse>[];
}

/** A new page in a fresh context, English, desktop size, recording every URL it requests. */
export async function openPage(
  browser: Browser,
  options: { width?: number; height?: number; locale?: string; permissions?: string[] } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    locale: options.locale ?? 'en-US',
    permissions: options.permissions ?? [],
  });
  const page = await context.newPage();
  const urls: string[] = [];
  const consoleErrors: string[] = [];
  const consoleResponses: Promise<ConsoleResponse>[] = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('response', (r) => {
    if (!new URL(r.url()).pathname.startsWith('/console/')) return;
    consoleResponses.push(
      r.allHeaders().then((h) => ({ url: r.url(), status: r.status(), csp: h['content-security-policy'] })),
    );
  });
  return { context, page, urls, consoleErrors, consoleResponses };
}

/**
 * The security checks every journey ends with: each answer the page loaded from /console/
 * carried the Content-Security-Policy, no URL the page requested holds a secret (the operators'
 * token, a bot token, a pipe token), and the browser reported no CSP violation.
 */
export async function expectSecurePage(opened: OpenedPage, secrets: readonly string[]): Promise<void> {
  const responses = await Promise.all(opened.consoleResponses);
  expect(responses.length).toBeGreaterThan(0);
  const withoutCsp = responses.filter((r) => !r.csp?.includes("default-src 'self'"));
  expect(withoutCsp).toEqual([]);
  expect(secrets.every((s) => s.length >= 16)).toBe(true);
  for (const secret of secrets) {
    expect(opened.urls.filter((u) => u.includes(secret) || u.includes(encodeURIComponent(secret)))).toEqual(
      [],
    );
  }
  expect(opened.consoleErrors.filter((e) => /content.security.policy/i.test(e))).toEqual([]);
}

/** Whether the page is wider than the screen (something sticks out and scrolls sideways). */
export async function overflowsSideways(
  page: Page,
): Promise<{ scrollWidth: number; clientWidth: number } | null> {
  const m = await page.evaluate<{ scrollWidth: number; clientWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })',
  );
  return m.scrollWidth > m.clientWidth ? m : null;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}/${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs in through the form, as an operator would. */
export async function signIn(page: Page, stack: Stack, token = stack.adminToken): Promise<void> {
  await page.goto(`${stack.baseUrl}/console/`);
  await page.getByLabel('Operator token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Signs in as signIn does and waits until the shell shows: a navigation started before that can
 * cancel the sign-in's request, and the next page then opens signed out.
 */
export async function signedIn(page: Page, stack: Stack, token = stack.adminToken): Promise<void> {
  await signIn(page, stack, token);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Ids and secrets of a pipe made through the admin API, as a script would set one up. */
export interface SeededPipe {
  bot: { id: string; name: string; user_id: string };
  botToken: string;
  guild: { id: string; name: string };
  channel: { id: string; name: string };
  pipe: { id: string; title: string };
  pipeToken: string;
  url: string;
}

/**
 * A bot, a server owned by another user, a text channel, the bot's membership and a plain pipe.
 * `everyonePermissions` is the @everyone role's mask (default: view and send);
 * `permissionOverwrites` the channel's role overwrites.
 */
export async function seedPipe(
  stack: Stack,
  names: { bot: string; guild: string; channel: string; pipe: string },
  options: {
    everyonePermissions?: number;
    permissionOverwrites?: { role_id: number; allow?: number; deny?: number }[];
  } = {},
): Promise<SeededPipe> {
  const { bot, token: botToken } = await stack.admin<{ bot: SeededPipe['bot']; token: string }>(
    'POST',
    '/admin/api/bot/create',
    { name: names.bot },
  );
  // The owner holds every permission, so the server belongs to a person, not to the bot.
  const ownerId = '10001';
  await stack.admin('POST', '/admin/api/user/upsert', { id: ownerId, username: 'owner' });
  const { guild } = await stack.admin<{ guild: SeededPipe['guild'] }>('POST', '/admin/api/guild/create', {
    name: names.guild,
    user_id: ownerId,
    ...(options.everyonePermissions === undefined
      ? {}
      : { everyone_permissions: options.everyonePermissions }),
  });
  const { channel } = await stack.admin<{ channel: SeededPipe['channel'] }>(
    'POST',
    '/admin/api/channel/create',
    {
      guild_id: guild.id,
      name: names.channel,
      type: 1,
      permission_overwrites: options.permissionOverwrites ?? [],
    },
  );
  await stack.admin('POST', '/admin/api/guild-member/add', { guild_id: guild.id, user_id: bot.user_id });
  const made = await stack.admin<{ pipe: SeededPipe['pipe']; access_token: string; url: string }>(
    'POST',
    '/admin/api/pipe/create',
    { bot_id: bot.id, title: names.pipe, channel_id: channel.id },
  );
  return { bot, botToken, guild, channel, pipe: made.pipe, pipeToken: made.access_token, url: made.url };
}

/** Posts a message through a pipe URL, as a sender would; answers its msg_id. */
export async function sendThroughPipe(url: string, body: unknown): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const envelope = (await res.json()) as { code: number; message: string; data: { msg_id: string } };
  if (res.status !== 200 || envelope.code !== 0) {
    throw new Error(`send-pipemsg: ${res.status} ${envelope.code} ${envelope.message}`);
  }
  return envelope.data.msg_id;
}
