// `npm run bench:preview`: the template studio's live preview, timed as the studio meets it (issue
// 19's goal: p95 under 100 ms on loopback for the GitLab card). The web app runs in this process on
// the real Redis and store (a fresh database and key prefix, dropped at the end), with a bot, a
// server and channel it has joined, and the GitLab push card template (test/fixtures/gitlab, 20
// commits). Each request is one POST over loopback HTTP, one after another (the studio sends one at
// a time): the studio's own POST /admin/api/template/render with a console session's cookie and
// CSRF token, and the bot API's POST /api/v3/template/render with the bot's token (the same
// preview function), each with the inline content, the test data as JSON text and the test
// channel, as the studio sends them. For scale it also times the bot API with the stored template
// by id, and the render alone in-process (compile, render, card conversion and check), without
// HTTP, auth or the directory.
// Not a test: it prints numbers. Needs the services (`npm run services`).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createHttpHandler } from '../src/api/app.js';
import { loadConfig } from '../src/config/index.js';
import { listen } from '../src/http/server.js';
import { createLogger } from '../src/log/logger.js';
import { compileTemplate, renderMessage } from '../src/render/index.js';
import { openResources } from '../src/resources.js';

const N = Number(process.env.BENCH_PREVIEW_N ?? 500);
const WARMUP = Number(process.env.BENCH_PREVIEW_WARMUP ?? 50);
const GOAL_P95_MS = 100;

const path = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));
const content = readFileSync(path('../test/fixtures/gitlab/push-card.json.twig'), 'utf8');
const eventText = readFileSync(path('../test/fixtures/gitlab/push-event.json'), 'utf8');

const tag = randomBytes(4).toString('hex');
const adminToken = randomBytes(24).toString('base64url');
const config = loadConfig(process.env, {
  ADMIN_TOKEN: adminToken,
  REDIS_PREFIX: `herald-bench-${tag}`,
  LOG_LEVEL: 'info',
  // The bot API's per-bot limit (60/s) would refuse a loop this fast: the bench measures the
  // render, not the limiter. (The studio's admin route is not a bot API route.)
  BOT_RATE_PER_SECOND: '1000000',
  BOT_RATE_BURST: '1000000',
});
// Request log lines are formatted as in production, then dropped rather than written to a terminal.
const log = createLogger('info', () => {});
const res = await openResources(config, log, { dbName: `herald_bench_preview_${tag}` });
const server = await listen(createHttpHandler(res), 0, '127.0.0.1');
const base = `http://127.0.0.1:${server.port}`;

async function call<T>(auth: string, route: string, body: unknown): Promise<T> {
  const r = await fetch(base + route, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const envelope = (await r.json()) as { code: number; message: string; data: T };
  if (envelope.code !== 0) throw new Error(`${route}: ${envelope.code} ${envelope.message}`);
  return envelope.data;
}
const admin = <T>(route: string, body: unknown) => call<T>(`Bearer ${adminToken}`, route, body);

/** Sorted-sample percentile (nearest rank). */
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

function summary(label: string, ms: number[]): { p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const f = (n: number) => `${n.toFixed(2).padStart(7)} ms`;
  console.log(
    `  ${label.padEnd(48)} p50 ${f(percentile(s, 50))}  p95 ${f(percentile(s, 95))}  p99 ${f(percentile(s, 99))}  max ${f(s.at(-1)!)}  mean ${f(mean)}`,
  );
  return { p95: percentile(s, 95) };
}

async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const start = performance.now();
    await fn();
    out.push(performance.now() - start);
  }
  return out;
}

try {
  // A bot in a server (owned by a person) with a text channel: the preview's test channel.
  const { bot, token } = await admin<{ bot: { id: string; user_id: string }; token: string }>(
    '/admin/api/bot/create',
    { name: 'Preview Bench' },
  );
  await admin('/admin/api/user/upsert', { id: '10001', username: 'owner' });
  const { guild } = await admin<{ guild: { id: string } }>('/admin/api/guild/create', {
    name: 'Bench HQ',
    user_id: '10001',
  });
  const { channel } = await admin<{ channel: { id: string } }>('/admin/api/channel/create', {
    guild_id: guild.id,
    name: 'ci',
    type: 1,
  });
  await admin('/admin/api/guild-member/add', { guild_id: guild.id, user_id: bot.user_id });
  const bearer = `Bot ${token}`;
  const { model } = await call<{ model: { id: string } }>(bearer, '/api/v3/template/create', {
    title: 'GitLab push',
    content,
    msgtype: 2,
    test_data: eventText,
    test_channel: channel.id,
  });

  const inline = { content, msgtype: 2, data: eventText, channel_id: channel.id };
  const first = await call<{ type: number; content: string }>(bearer, '/api/v3/template/render', inline);
  const cards = JSON.parse(first.content) as { modules: unknown[] }[];
  const [l1, l5, l15] = loadavg();
  console.log(
    `GitLab push card (${content.length} characters of template, 20 commits, ${eventText.length} bytes of data) -> ` +
      `type ${first.type}, ${cards.length} card, ${cards[0]?.modules.length} modules, ${first.content.length} characters`,
  );
  console.log(
    `${N} sequential requests each (after ${WARMUP} warm-up), one connection, loopback; ` +
      `${availableParallelism()} cores, load average ${l1?.toFixed(1)} / ${l5?.toFixed(1)} / ${l15?.toFixed(1)}`,
  );

  // The studio's own call: the console session's cookie and CSRF token, as the browser sends them.
  const signIn = await fetch(`${base}/console/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: adminToken }),
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { data: session } = (await signIn.json()) as { data: { csrf_token: string } };
  const studioCall = async () => {
    const r = await fetch(`${base}/admin/api/template/render`, {
      method: 'POST',
      headers: { Cookie: cookie, 'X-CSRF-Token': session.csrf_token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ bot_id: bot.id, ...inline }),
    });
    const envelope = (await r.json()) as { code: number; message: string };
    if (envelope.code !== 0) throw new Error(`studio render: ${envelope.code} ${envelope.message}`);
  };

  const studio = summary('POST /admin/api/template/render (the studio)', await timed(studioCall));
  summary(
    'POST /api/v3/template/render, inline content',
    await timed(() => call(bearer, '/api/v3/template/render', inline)),
  );
  summary(
    'POST /api/v3/template/render, stored id',
    await timed(() => call(bearer, '/api/v3/template/render', { id: model.id })),
  );
  const data: unknown = JSON.parse(eventText);
  summary(
    'render alone, in-process (no HTTP, no lookups)',
    await timed(async () => {
      const compiled = compileTemplate(content);
      renderMessage({ compiled, msgtype: 2 }, data, { guild: null, channel: null });
    }),
  );
  console.log(
    `goal: preview p95 < ${GOAL_P95_MS} ms: ${studio.p95 < GOAL_P95_MS ? 'holds' : 'DOES NOT HOLD'} (p95 ${studio.p95.toFixed(2)} ms)`,
  );
} finally {
  await server.close(0);
  await res.store.dropDatabase().catch(() => {});
  let cursor = '0';
  do {
    const [next, keys] = await res.redis.scan(cursor, 'MATCH', `${config.redisPrefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await res.redis.del(...keys);
  } while (cursor !== '0');
  await res.close();
}
