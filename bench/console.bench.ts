/**
 * `npm run bench:console`: the operator console's first load in a real headless chromium, over a
 * real web process and worker on the real Redis and store (test/browser/stack.ts, fresh database
 * and key prefix), against baselines loaded from the same server in the same run.
 *
 * The console is built with Vite's build API into a temporary folder (the web process serves it
 * from there: CONSOLE_DIR), and data is made through the admin API so the overview has numbers:
 * three bots, pipes, messages sent (some after a retry) and failed for lack of permission. One
 * sign-in through POST /console/api/session gives the cookie; every load then happens in a new
 * browser context (empty cache, no connections) with that cookie.
 *
 * Each run loads, in an order that rotates from run to run:
 * - overview: /console/ until the overview shows its numbers (the browser's own Accept-Encoding);
 * - overview, uncompressed: the same with `Accept-Encoding: identity`, that is as the server sent
 *   it before the build wrote .br/.gz copies of the assets;
 * - floor (the baseline): a static page from the same server and folder with one tiny module
 *   script that makes the same session call the app makes first and writes its answer into the
 *   page; the least any signed-in page of this server can cost;
 * - sign-in screen: /console/ without the cookie, until the token field shows (the app's shell
 *   and the session check, no screen chunk, no data).
 * Figures come from the page's Performance API: navigation timing (responseEnd,
 * domContentLoadedEventEnd, loadEventEnd), `ready` (performance.now() when the page's "done"
 * element first appears, seen by a MutationObserver the bench adds before any page script), and
 * the JS resources' encodedBodySize (body bytes on the wire); raw and gzip -9 sizes (KB = 1024
 * bytes) are computed from the built files. One round of all four is a warm-up and is not counted.
 * Then each route of the app, and the queue browser, is loaded once, listing the JS it adds.
 *
 * Environment: BENCH_CONSOLE_RUNS (default 10).
 */

import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { launchBrowser, startStack } from '../test/browser/stack.js';

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 10);
/** The budgets (issue 18, Speed). */
const JS_BUDGET_GZIP = 200 * 1024;
const INTERACTIVE_BUDGET_MS = 1000;

const root = fileURLToPath(new URL('..', import.meta.url));
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const ms = (n: number) => `${n.toFixed(0)} ms`;

// The console as `npm run build:console` builds it (same config, pre-compression included).
const consoleDir = mkdtempSync(join(tmpdir(), 'herald-console-bench-'));
await build({
  configFile: `${root}console/vite.config.ts`,
  logLevel: 'warn',
  build: { outDir: consoleDir, emptyOutDir: true },
});
// The floor page: served like any asset (same headers, same CSP, a cold cache each time).
writeFileSync(
  join(consoleDir, 'assets', 'bench-floor.html'),
  `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Herald Console (floor)</title>
    <link rel="icon" href="data:," />
    <script type="module" src="/console/assets/bench-floor.js"></script>
  </head>
  <body><div id="app"></div></body>
</html>
`,
);
writeFileSync(
  join(consoleDir, 'assets', 'bench-floor.js'),
  `const res = await fetch('/console/api/session', { credentials: 'same-origin', cache: 'no-store' });
const out = document.createElement('output');
out.id = 'ready';
out.textContent = String((await res.json()).data.idle_timeout_s);
document.getElementById('app').append(out);
`,
);

// The relay the bots deliver to: answers 200, except 503 to the first try of every 4th message
// (so the overview shows retries).
let relayed = 0;
const firstTryRefused = new Set<string>();
const relay = createServer((req, res) => {
  let text = '';
  req.on('data', (d: Buffer) => {
    text += d.toString();
  });
  req.on('end', () => {
    const nonce = String((JSON.parse(text || '{}') as { nonce?: unknown }).nonce);
    relayed++;
    if (relayed % 4 === 0 && !firstTryRefused.has(nonce)) {
      firstTryRefused.add(nonce);
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end('{"code":50300,"message":"busy"}');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ code: 0, message: 'ok', data: { msg_id: `up-${nonce}` } }));
  });
});
await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
const relayAddress = relay.address();
const relayUrl = `http://127.0.0.1:${typeof relayAddress === 'object' && relayAddress ? relayAddress.port : 0}`;

const [stack, browser] = await Promise.all([
  startStack('bench_console', { CONSOLE_DIR: consoleDir }),
  launchBrowser(),
]);
// Should the bench fail half-way, it leaves no web or worker process behind.
process.on('exit', () => {
  for (const p of [stack.web, stack.worker]) p.child.kill('SIGTERM');
});

type Obj = Record<string, unknown>;
const post = <T>(path: string, body: Obj) => stack.admin<T>('POST', path, body);

async function botIn(name: string, guild: { id: string }, rate = 1000) {
  const { bot } = await post<{ bot: { id: string; user_id: string } }>('/admin/api/bot/create', {
    name,
    sink: 'relay',
    relay_url: relayUrl,
    upstream_token: `upstream-${name}`,
    rate_capacity: rate,
    rate_per_second: rate,
  });
  await post('/admin/api/guild-member/add', { guild_id: guild.id, user_id: bot.user_id, roles: [] });
  return bot;
}

async function guildWithChannel(name: string, everyonePermissions: number) {
  const { user } = await post<{ user: { id: string } }>('/admin/api/user/upsert', {
    id: `${Date.now()}${randomInt(0, 1_000_000).toString().padStart(6, '0')}`,
    username: `${name} owner`,
  });
  const { guild } = await post<{ guild: { id: string } }>('/admin/api/guild/create', {
    name,
    user_id: user.id,
    everyone_permissions: everyonePermissions,
  });
  const { channel } = await post<{ channel: { id: string } }>('/admin/api/channel/create', {
    name: 'general',
    guild_id: guild.id,
  });
  return { guild, channel };
}

async function pipe(bot: { id: string }, channel: { id: string }, title: string) {
  const r = await post<{ pipe: { id: string }; access_token: string }>('/admin/api/pipe/create', {
    bot_id: bot.id,
    title,
    channel_id: channel.id,
    rate_limit: { capacity: 1000, per_second: 1000 },
  });
  return { id: r.pipe.id, token: r.access_token };
}

async function send(token: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(
      `${stack.baseUrl}/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: `Deploy **${i}** finished` }),
      },
    );
    const body = (await res.json()) as { code: number; data: { msg_id: string } };
    if (body.code !== 0) throw new Error(`send failed: ${JSON.stringify(body)}`);
    ids.push(body.data.msg_id);
  }
  return ids;
}

// View channels (2048) + send messages (4096) for everyone in one server; view only in the other.
const open = await guildWithChannel('Herald HQ', 6144);
const readOnly = await guildWithChannel('Announcements', 2048);
const deployBot = await botIn('Deploy bot', open.guild);
const alertBot = await botIn('Alert bot', readOnly.guild);
await botIn('Spare bot', open.guild);
const deploys = await pipe(deployBot, open.channel, 'deploys');
const builds = await pipe(deployBot, open.channel, 'builds');
const alerts = await pipe(alertBot, readOnly.channel, 'alerts');
const SENT = 30;
const FAILED = 8;
const [sentIds] = await Promise.all([
  send(deploys.token, 24),
  send(builds.token, 6),
  send(alerts.token, FAILED),
]);
interface Overview {
  recent: { sent: number; failed: number; retried: number };
  dead_by_reason: { reason: string; count: number }[];
}
for (const deadline = Date.now() + 60_000; ; ) {
  const o = await stack.admin<Overview>('GET', '/admin/api/overview');
  if (o.recent.sent >= SENT && o.recent.failed >= FAILED) {
    const dead = o.dead_by_reason.map((d) => `${d.reason} ${d.count}`).join(', ');
    console.log(
      `data: 3 bots, 3 pipes; last 15 min: ${o.recent.sent} sent, ${o.recent.retried} retried, ${o.recent.failed} failed (${dead})`,
    );
    break;
  }
  if (Date.now() > deadline) throw new Error(`deliveries did not settle: ${JSON.stringify(o.recent)}`);
  await new Promise((r) => setTimeout(r, 200));
}

// One sign-in; its cookie is put into each fresh context.
const signIn = await fetch(`${stack.baseUrl}/console/api/session`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ token: stack.adminToken }),
});
const cookie = /herald_console=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
if (signIn.status !== 200 || cookie === undefined) throw new Error(`sign-in failed: ${signIn.status}`);

interface Resource {
  path: string;
  encoded: number;
  contentEncoding: string;
}
interface Load {
  responseEnd: number;
  dcl: number;
  load: number;
  ready: number;
  js: Resource[];
  /** startTime and responseEnd of each resource, by path, for the overview's breakdown. */
  spans: Record<string, { start: number; end: number }>;
}

interface Variant {
  name: string;
  path: string;
  /** The element whose first appearance is `ready`. */
  ready: string;
  signedIn: boolean;
  headers?: Record<string, string>;
}

const VARIANTS: readonly Variant[] = [
  { name: 'overview', path: '/console/', ready: '.minute-chart', signedIn: true },
  {
    name: 'overview, uncompressed',
    path: '/console/',
    ready: '.minute-chart',
    signedIn: true,
    headers: { 'Accept-Encoding': 'identity' },
  },
  { name: 'floor (baseline)', path: '/console/assets/bench-floor.html', ready: '#ready', signedIn: true },
  { name: 'sign-in screen', path: '/console/', ready: 'input[type="password"]', signedIn: false },
];

/*
 * Page-side code, as source text: this program is type-checked without the DOM's types.
 * READY_WATCH runs before any page script and notes when the ready element first enters the
 * document; PAGE_TIMING reads the navigation and resource timing once the page is ready.
 */
const READY_WATCH = (selector: string) => `(() => {
  const observer = new MutationObserver(() => {
    if (window.__benchReady === undefined && document.querySelector(${JSON.stringify(selector)})) {
      window.__benchReady = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;
const IS_READY =
  "window.__benchReady !== undefined && performance.getEntriesByType('navigation')[0].loadEventEnd > 0";
const PAGE_TIMING = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    responseEnd: nav.responseEnd,
    dcl: nav.domContentLoadedEventEnd,
    load: nav.loadEventEnd,
    ready: window.__benchReady,
    resources: performance.getEntriesByType('resource').map((r) => ({
      path: new URL(r.name).pathname,
      encoded: r.encodedBodySize,
      start: r.startTime,
      end: r.responseEnd,
    })),
  };
})()`;

/** Loads `v` in a new context (cold cache) and reads the page's performance timing. */
async function measure(b: Browser, v: Variant): Promise<Load> {
  const context = await b.newContext({
    viewport: { width: 1280, height: 860 },
    locale: 'en-US',
    ...(v.headers ? { extraHTTPHeaders: v.headers } : {}),
  });
  try {
    if (v.signedIn)
      await context.addCookies([
        {
          name: 'herald_console',
          value: cookie as string,
          url: stack.baseUrl,
          httpOnly: true,
          sameSite: 'Strict',
        },
      ]);
    await context.addInitScript({ content: READY_WATCH(v.ready) });
    const page = await context.newPage();
    const encodings = new Map<string, string>();
    page.on('response', (r) => {
      encodings.set(new URL(r.url()).pathname, r.headers()['content-encoding'] ?? 'none');
    });
    await page.goto(stack.baseUrl + v.path, { waitUntil: 'load' });
    // Polled with evaluate (run over the debugging protocol): waitForFunction's eval is refused by
    // the console's CSP. The time itself is the observer's, not the poll's.
    for (const deadline = Date.now() + 30_000; !(await page.evaluate<boolean>(IS_READY)); ) {
      if (Date.now() > deadline) throw new Error(`${v.name}: ${v.ready} did not appear`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const t = await page.evaluate<{
      responseEnd: number;
      dcl: number;
      load: number;
      ready: number;
      resources: { path: string; encoded: number; start: number; end: number }[];
    }>(PAGE_TIMING);
    return {
      responseEnd: t.responseEnd,
      dcl: t.dcl,
      load: t.load,
      ready: t.ready,
      js: t.resources
        .filter((r) => r.path.endsWith('.js'))
        .map((r) => ({ ...r, contentEncoding: encodings.get(r.path) ?? '?' })),
      spans: Object.fromEntries(t.resources.map((r) => [r.path, { start: r.start, end: r.end }])),
    };
  } finally {
    await context.close();
  }
}

// Warm-up (the web process's first requests, chromium's first context), then interleaved runs.
for (const v of VARIANTS) await measure(browser, v);
const logFrom = stack.web.out.length;
const loads = new Map<string, Load[]>(VARIANTS.map((v) => [v.name, []]));
for (let run = 0; run < RUNS; run++) {
  for (let i = 0; i < VARIANTS.length; i++) {
    const v = VARIANTS[(run + i) % VARIANTS.length] as Variant;
    loads.get(v.name)?.push(await measure(browser, v));
  }
}

/** gzip -9 size of a served file: the built file when it is the console's, else as served. */
const gzipCache = new Map<string, { raw: number; gzip: number }>();
async function sizes(path: string): Promise<{ raw: number; gzip: number }> {
  const known = gzipCache.get(path);
  if (known) return known;
  let bytes: Buffer;
  if (path.startsWith('/console/assets/')) {
    bytes = readFileSync(join(consoleDir, 'assets', path.slice('/console/assets/'.length)));
  } else {
    const res = await fetch(stack.baseUrl + path, {
      headers: { Cookie: `herald_console=${cookie}`, 'Accept-Encoding': 'identity' },
    });
    bytes = Buffer.from(await res.arrayBuffer());
  }
  const s = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  gzipCache.set(path, s);
  return s;
}

const median = (xs: number[]) => percentile(xs, 0.5);
/** Nearest rank. */
function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)] as number;
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

// Each route once, cold, to list the JS it adds to the overview's.
const overviewLoad = (loads.get('overview') as Load[])[0] as Load;
const overviewJs = new Set(overviewLoad.js.map((r) => r.path));
const ROUTES = [
  'first-pipe',
  'bots',
  `bots/${deployBot.id}`,
  'intimacy',
  'directory',
  `directory/${open.guild.id}`,
  'pipes',
  `pipes/${deploys.id}`,
  'deliveries',
  `deliveries/${sentIds[0]}`,
  'templates',
  'gallery',
  // The template studio with the editor (a new KMarkdown template: the markdown language's chunk).
  `templates/new?bot_id=${deployBot.id}`,
];
const routeJs: { route: string; added: string[] }[] = [];
for (const route of [...ROUTES.map((r) => `/console/${r}`), '/console/queues/']) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  await context.addCookies([
    { name: 'herald_console', value: cookie, url: stack.baseUrl, httpOnly: true, sameSite: 'Strict' },
  ]);
  const page = await context.newPage();
  const js: string[] = [];
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith('.js') && r.ok()) js.push(path);
  });
  await page.goto(stack.baseUrl + route, { waitUntil: 'networkidle' });
  routeJs.push({ route, added: js.filter((p) => !overviewJs.has(p)) });
  await context.close();
}

// The report.
const [load1, load5, load15] = loadavg();
console.log(
  `\n${RUNS} interleaved runs per page (+1 warm-up), each in a new browser context (cold cache); ` +
    `chromium headless, loopback; ${availableParallelism()} cores, load average ${load1?.toFixed(1)} / ${load5?.toFixed(1)} / ${load15?.toFixed(1)}`,
);
const FIGURES: { key: 'responseEnd' | 'dcl' | 'load' | 'ready'; label: string }[] = [
  { key: 'responseEnd', label: 'HTML responseEnd' },
  { key: 'dcl', label: 'DOMContentLoaded end' },
  { key: 'load', label: 'load event end' },
  { key: 'ready', label: 'ready' },
];
const of = (name: string) => loads.get(name) as Load[];
const overview = of('overview');
const uncompressed = of('overview, uncompressed');
const floor = of('floor (baseline)');
console.log(
  "\nms from navigation start, median / p90 (x: the median over the floor's median). ready: the overview " +
    'has drawn its numbers; the floor has written its answer; the sign-in screen shows its token field.',
);
console.log(
  `  ${'page'.padEnd(24)}${FIGURES.map((f) => f.label.padStart(26)).join('')}${'JS on the wire'.padStart(16)}`,
);
for (const v of VARIANTS) {
  const ls = of(v.name);
  const cells = FIGURES.map((f) => {
    const xs = ls.map((l) => l[f.key]);
    const ratio = median(xs) / median(floor.map((l) => l[f.key]));
    return `${ms(median(xs))} / ${ms(percentile(xs, 0.9))} (${ratio.toFixed(2)}x)`.padStart(26);
  });
  const wire = median(ls.map((l) => sum(l.js.map((r) => r.encoded))));
  console.log(`  ${v.name.padEnd(24)}${cells.join('')}${kb(wire).padStart(16)}`);
}

console.log('\nready, per run (ms), in the order run:');
for (const v of VARIANTS) {
  const readies = of(v.name).map((l) => l.ready.toFixed(0).padStart(6));
  console.log(`  ${v.name.padEnd(24)}${readies.join('')}`);
}
for (const [label, to] of [
  ['overview / floor', floor],
  ['overview / uncompressed', uncompressed],
] as const) {
  const ratios = overview.map((l, i) => (l.ready / (to[i] as Load).ready).toFixed(2).padStart(6));
  console.log(`  ${label.padEnd(24)}${ratios.join('')}`);
}

// Where the overview's time goes: each step's requests (a step of several files spans the first
// start to the last end), medians over the runs; and how long the web process took to answer
// each API call (its request log's duration_ms, over every timed run).
const STEPS: { label: string; pick: (path: string) => boolean }[] = [
  { label: 'entry JS + CSS', pick: (p) => /\/assets\/index-/.test(p) },
  { label: 'GET /console/api/session', pick: (p) => p === '/console/api/session' },
  { label: 'overview chunks', pick: (p) => p.endsWith('.js') && !/\/assets\/index-/.test(p) },
  { label: 'GET /admin/api/overview', pick: (p) => p === '/admin/api/overview' },
  { label: 'GET /admin/api/bot/list', pick: (p) => p === '/admin/api/bot/list' },
];
const stepSpan = (l: Load, pick: (path: string) => boolean) => {
  const spans = Object.entries(l.spans).flatMap(([p, span]) => (pick(p) ? [span] : []));
  return { start: Math.min(...spans.map((x) => x.start)), end: Math.max(...spans.map((x) => x.end)) };
};
const served = new Map<string, number[]>();
for (const line of stack.web.out.slice(logFrom).join('').split('\n')) {
  if (!line.includes('"request"')) continue;
  let r: { path?: string; duration_ms?: number };
  try {
    r = JSON.parse(line);
  } catch {
    continue; // the part of a line written before the timed runs began
  }
  if (r.path === undefined || r.duration_ms === undefined || !/\/api\//.test(r.path)) continue;
  served.set(r.path, [...(served.get(r.path) ?? []), r.duration_ms]);
}
console.log('\noverview, where the time goes (medians; ms from navigation start):');
console.log(
  `  ${'step'.padEnd(26)}${'start'.padStart(8)}${'end'.padStart(8)}${'took'.padStart(8)}   web process`,
);
const row = (label: string, start: number[], end: number[], took: number[], server = '') =>
  console.log(
    `  ${label.padEnd(26)}${median(start).toFixed(0).padStart(8)}${median(end).toFixed(0).padStart(8)}` +
      `${median(took).toFixed(0).padStart(8)}${server}`,
  );
const navEnds = overview.map((l) => l.responseEnd);
row('HTML', [0], navEnds, navEnds);
for (const st of STEPS) {
  const spans = overview.map((l) => stepSpan(l, st.pick));
  const server = served.get(/^GET (\S+)/.exec(st.label)?.[1] ?? '');
  row(
    st.label,
    spans.map((x) => x.start),
    spans.map((x) => x.end),
    spans.map((x) => x.end - x.start),
    server ? `   median ${ms(median(server))}, p90 ${ms(percentile(server, 0.9))}` : '',
  );
}
const readies = overview.map((l) => l.ready);
console.log(`  ${'numbers drawn'.padEnd(26)}${''.padStart(8)}${median(readies).toFixed(0).padStart(8)}`);

console.log("\nJS of the overview's first load (cold):");
let rawTotal = 0;
let gzipTotal = 0;
for (const r of overviewLoad.js) {
  const s = await sizes(r.path);
  rawTotal += s.raw;
  gzipTotal += s.gzip;
  const wireU = (uncompressed[0] as Load).js.find((u) => u.path === r.path);
  console.log(
    `  ${r.path.padEnd(44)} raw ${kb(s.raw).padStart(9)}  gzip -9 ${kb(s.gzip).padStart(8)}  ` +
      `on the wire ${kb(r.encoded).padStart(8)} (${r.contentEncoding}; uncompressed arm ${kb(wireU?.encoded ?? 0)}, ${wireU?.contentEncoding ?? '?'})`,
  );
}
for (const css of Object.keys(overviewLoad.spans).filter((p) => p.endsWith('.css'))) {
  const s = await sizes(css);
  console.log(`  (and ${css}: raw ${kb(s.raw)}, gzip -9 ${kb(s.gzip)}; not counted: CSS)`);
}
console.log(
  `  total: raw ${kb(rawTotal)}, gzip -9 ${kb(gzipTotal)} of the ${kb(JS_BUDGET_GZIP)} budget ` +
    `(${((gzipTotal / JS_BUDGET_GZIP) * 100).toFixed(0)}%); on the wire ${kb(sum(overviewLoad.js.map((r) => r.encoded)))}`,
);

console.log("\nJS each other route adds to the overview's (each loaded once, cold, signed in):");
const label = (route: string) =>
  route === '/console/queues/'
    ? '/console/queues/ (bull-board, own page)'
    : route.replace(/\/console\/(bots|directory|pipes|deliveries)\/[^/]+$/, '/console/$1/:id');
for (const { route, added } of routeJs) {
  const list = (await Promise.all(added.map(async (p) => ({ p, s: await sizes(p) })))).sort(
    (a, b) => b.s.gzip - a.s.gzip,
  );
  const g = sum(list.map((x) => x.s.gzip));
  const names = list.map((x) => `${x.p.split('/').pop()} (${kb(x.s.gzip)})`).join(', ');
  console.log(`  ${label(route).padEnd(40)} +${kb(g).padStart(9)} gzip: ${names || 'nothing'}`);
}

const readyMedian = median(overview.map((l) => l.ready));
const readyP90 = percentile(
  overview.map((l) => l.ready),
  0.9,
);
console.log(
  `\ngoals: overview JS ${kb(gzipTotal)} gzip <= ${kb(JS_BUDGET_GZIP)}: ${gzipTotal <= JS_BUDGET_GZIP ? 'holds' : 'FAILS'}; ` +
    `overview ready median ${ms(readyMedian)}, p90 ${ms(readyP90)} < ${ms(INTERACTIVE_BUDGET_MS)}: ` +
    `${readyP90 < INTERACTIVE_BUDGET_MS ? 'holds' : readyMedian < INTERACTIVE_BUDGET_MS ? 'median holds, p90 does not' : 'FAILS'}`,
);

await browser.close();
await stack.stop();
await new Promise((r) => relay.close(r));
rmSync(consoleDir, { recursive: true, force: true });
