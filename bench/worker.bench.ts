/**
 * `npm run bench:worker`: pipe-message delivery throughput and latency on the real Redis and
 * store (FerretDB locally), with a local HTTP server as the relay sink.
 *
 * 1. Throughput: N jobs (GitLab push card, 20 commits: render + checks + rate limit with high
 *    limits + relay dispatch + delivery record) against a no-op BullMQ worker draining N jobs of
 *    the same size, same concurrency, same run. Prints both rates and their ratio.
 * 2. Latency: messages added at a steady RATE per second; accept-to-sent p50/p99.
 * 3. Memory: RSS and heap sampled through phase 2 (and a longer run with BENCH_MEMORY_MESSAGES).
 *
 * Environment: BENCH_MESSAGES (default 3000), BENCH_RATE (default 500), BENCH_LATENCY_SECONDS
 * (default 10), BENCH_MEMORY_MESSAGES (default 0 = skip; 100000 for the flat-memory check).
 * Jobs are added straight to the queue, exactly as the pipe ingest adds them.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { metricsFor } from '../src/metrics/index.js';
import { PIPE_JOB_NAME, type PipeJob } from '../src/queue/pipe-messages.js';
import { startWorkers } from '../src/workers/index.js';
import { addTestMember, createTestChannel, createTestGuild } from '../test/helpers/directory.js';
import { createTestBot, startTestApp } from '../test/helpers/test-app.js';

const N = Number(process.env.BENCH_MESSAGES ?? 3000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 10);
const MEMORY_MESSAGES = Number(process.env.BENCH_MEMORY_MESSAGES ?? 0);
const CONCURRENCY = 16;

// A GitLab push event with 20 commits (44 KB), as the body text a sender posts (what a job carries).
const input = readFileSync(new URL('../test/fixtures/gitlab/push-large.json', import.meta.url), 'utf8');
const card = readFileSync(new URL('../test/fixtures/gitlab/push-card.json.twig', import.meta.url), 'utf8');

// The relay sink: answers 200 at once.
let sunk = 0;
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    sunk++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(`{"code":0,"message":"ok","data":{"msg_id":"u${sunk}"}}`);
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkAddress = sink.address();
const sinkUrl = `http://127.0.0.1:${typeof sinkAddress === 'object' && sinkAddress ? sinkAddress.port : 0}`;

const app = await startTestApp('bench_worker', {
  LOG_LEVEL: 'warn',
  WORKER_CONCURRENCY: String(CONCURRENCY),
  METRICS_PORT: '0',
  HOST: '127.0.0.1',
});
const bot = await createTestBot(app, {
  name: 'bench',
  sink: 'relay',
  relay_url: sinkUrl,
  upstream_token: 'bench-token',
  rate_capacity: 1_000_000,
  rate_per_second: 1_000_000,
});
const guild = await createTestGuild(app);
const channelId = (await createTestChannel(app, guild.id)).id;
await addTestMember(app, guild.id, bot.bot.user_id as string);
const tpl = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
  bot: bot.token,
  json: { title: 'gitlab', content: card, msgtype: 2 },
});
const templateId = tpl.body.data.model.id;
const pipeRes = await app.request<{ pipe: { id: string } }>('POST', '/admin/api/pipe/create', {
  admin: true,
  json: { bot_id: bot.id, title: 'bench', channel_id: channelId, template_id: templateId },
});
const pipeId = pipeRes.body.data.pipe.id;
const queue = app.res.pipeRuntime.queue;

const job = (): PipeJob => ({
  msg_id: randomUUID(),
  pipe_id: pipeId,
  bot_id: bot.id,
  channel_id: channelId,
  guild_id: guild.id,
  template_id: templateId,
  type: null,
  quote: null,
  nonce: '',
  temp_target_id: null,
  input,
  accepted_at: Date.now(),
});

async function addBulk(q: Queue, n: number, make: () => PipeJob): Promise<void> {
  for (let i = 0; i < n; i += 500) {
    const batch = Array.from({ length: Math.min(500, n - i) }, () => {
      const data = make();
      return { name: PIPE_JOB_NAME, data, opts: { jobId: data.msg_id } };
    });
    await q.addBulk(batch);
  }
}

// Sent messages as this process's worker counts them (no store polling competing with the worker).
const sentCount = async () => (await metricsFor(app.res).sent.get()).values.reduce((a, v) => a + v.value, 0);
async function waitSent(target: number): Promise<void> {
  while ((await sentCount()) < target) await new Promise((r) => setTimeout(r, 50));
}

// --- 1a. No-op drain of N jobs of the same size.
const url = new URL(app.config.redisUrl);
const noopQueue = new Queue('bench-noop', {
  connection: { host: url.hostname, port: Number(url.port || 6379) },
  prefix: app.config.redisPrefix,
});
await addBulk(noopQueue, N, job);
const noopConn = new Redis(app.config.redisUrl, { maxRetriesPerRequest: null });
let drained = 0;
const noopStart = performance.now();
const noop = new Worker('bench-noop', async () => {}, {
  connection: noopConn,
  prefix: app.config.redisPrefix,
  concurrency: CONCURRENCY,
});
noop.on('completed', () => drained++);
while (drained < N) await new Promise((r) => setTimeout(r, 10));
const noopSeconds = (performance.now() - noopStart) / 1000;
await noop.close();
await noopQueue.obliterate({ force: true });
await noopQueue.close();
noopConn.disconnect();

// --- 1b. The real worker on N jobs (one warm-up message first: compile, caches, connections).
const workers = await startWorkers(app.res);
await addBulk(queue, 1, job);
await waitSent(1);
await addBulk(queue, N, job);
const realStart = performance.now();
await waitSent(N + 1);
const realSeconds = (performance.now() - realStart) / 1000;
const noopRate = N / noopSeconds;
const realRate = N / realSeconds;

// --- 2. Latency at RATE messages per second, with memory samples.
const accepted = new Map<string, number>();
const mem: Array<{ at: number; rss: number; heap: number }> = [];
const sample = () => {
  const m = process.memoryUsage();
  mem.push({ at: mem.length, rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20 });
};
const latencyTotal = RATE * LATENCY_SECONDS;
const before = await sentCount();
const tickMs = 20;
const perTick = (RATE * tickMs) / 1000;
const latencyStart = Date.now();
let added = 0;
const sampler = setInterval(sample, 1000);
while (added < latencyTotal) {
  const due = Math.min(latencyTotal, Math.floor(((Date.now() - latencyStart) / tickMs + 1) * perTick));
  const batch: Array<{ name: typeof PIPE_JOB_NAME; data: PipeJob; opts: { jobId: string } }> = [];
  for (; added < due; added++) {
    const data = job();
    accepted.set(data.msg_id, data.accepted_at);
    batch.push({ name: PIPE_JOB_NAME, data, opts: { jobId: data.msg_id } });
  }
  if (batch.length > 0) await queue.addBulk(batch);
  await new Promise((r) => setTimeout(r, tickMs));
}
await waitSent(before + latencyTotal);
clearInterval(sampler);
const latencies: number[] = [];
for (const [id, at] of accepted) {
  const rec = await app.res.store.deliveries.get(id);
  if (rec?.sent_at) latencies.push(rec.sent_at - at);
}
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;

// --- 3. Optional long run for memory.
if (MEMORY_MESSAGES > 0) {
  const base = await sentCount();
  const sampler2 = setInterval(sample, 5000);
  await addBulk(queue, MEMORY_MESSAGES, job);
  await waitSent(base + MEMORY_MESSAGES);
  clearInterval(sampler2);
}

const fmt = (x: number) => x.toFixed(1);
process.stdout.write(
  [
    `messages: ${N} (GitLab push card, 20 commits; relay to a local HTTP sink; concurrency ${CONCURRENCY})`,
    `no-op BullMQ drain: ${fmt(noopRate)} msg/s`,
    `Herald worker:      ${fmt(realRate)} msg/s`,
    `ratio:              ${(realRate / noopRate).toFixed(2)}x of the no-op drain (goal >= 0.6x)`,
    `accept-to-sent at ${RATE} msg/s for ${LATENCY_SECONDS} s (${latencies.length} messages): p50 ${pct(50)} ms, p99 ${pct(99)} ms (goal p99 < 15 ms)`,
    `memory (MiB, per sample): rss ${mem.map((m) => fmt(m.rss)).join(' ')}`,
    `                          heap ${mem.map((m) => fmt(m.heap)).join(' ')}`,
    MEMORY_MESSAGES > 0
      ? `memory run: ${MEMORY_MESSAGES} further messages`
      : 'memory run: skipped (BENCH_MEMORY_MESSAGES=0)',
    '',
  ].join('\n'),
);
await workers.close(5_000);
await app.close();
sink.close();
process.exit(0);
