import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import mongoose from 'mongoose';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
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
      candidate = startEntry('web', { ...common, PORT: String(port), HOST: '127.0.0.1' });
      try {
        await waitForOutput(candidate, '"listening"', 30_000);
        web = candidate;
      } catch (err) {
        // Another socket can take the port between the check and the listen.
        if (attempt >= 3 || !candidate.out.join('').includes('EADDRINUSE')) throw err;
        await candidate.exited;
      }
    }
    await waitForOutput(worker, '"worker started"', 30_000);
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

export async function launchBrowser(): Promise<Browser> {
  // launch() gives each browser a fresh temporary profile.
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** A new page in a fresh context, English, desktop size, recording every URL it requests. */
export async function openPage(
  browser: Browser,
  options: { width?: number; height?: number; locale?: string } = {},
): Promise<{ context: BrowserContext; page: Page; urls: string[]; consoleErrors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    locale: options.locale ?? 'en-US',
  });
  const page = await context.newPage();
  const urls: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  return { context, page, urls, consoleErrors };
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
