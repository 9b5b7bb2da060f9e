/**
 * `npm run bench:worker`: pipe-message delivery throughput and latency on the real Redis and
 * store (FerretDB locally), with a local HTTP server as the relay sink.
 *
 * The worker under test runs as its own process, exactly as the Procfile's `worker` runs it
 * (`src/bin/worker.ts`), and so do the baselines (bench/lib/reference-worker.ts,
 * bench/lib/noop-worker.ts); this process only sets up, adds jobs, answers as the relay target
 * and reads the results. Jobs are added straight to the queue, exactly as the pipe ingest adds
 * them.
 *
 * 1. Throughput: N jobs (GitLab push card, 20 commits: render + checks + rate limit with high
 *    limits + relay dispatch + delivery record) are added to a paused queue, then released to
 *    the Herald worker; against the lean reference worker (bench/lib/reference-worker.ts: BullMQ,
 *    input decode, JSON.parse, Herald's render of the same template, card JSON.parse +
 *    stringify, one keep-alive POST to the same sink; nothing else) draining the same jobs,
 *    same concurrency, same run. Rounds alternate (reference, Herald, then for information a
 *    no-op BullMQ drain and Herald on the job format from before deflating: base64 only); prints
 *    each round's Herald/reference ratio, their median, CPU per message of each process (mean
 *    over the rounds), the reference's step by step, and the ratio that CPU alone implies.
 * 2. Latency: messages added at a steady RATE per second; accept-to-sent p50/p99 (sent_at, the
 *    job's outcome, - accepted_at). The same schedule into the no-op worker first gives the floor
 *    that BullMQ and this machine set (accepted -> finishedOn).
 * 3. Memory: the worker process's RSS and heap, sampled through phase 2 (and through a longer
 *    run with BENCH_MEMORY_MESSAGES).
 *
 * Environment: BENCH_MESSAGES (default 3000), BENCH_ROUNDS (default 3), BENCH_RATE (default
 * 500), BENCH_LATENCY_SECONDS (default 10), BENCH_LATENCY_WARMUP_SECONDS (default 1: added at
 * the rate first, not counted), BENCH_MEMORY_MESSAGES (default 0 = skip; 100000 for the
 * flat-memory check), BENCH_PROF (a directory: the Herald worker writes a V8 CPU profile there
 * on exit), BENCH_NODE_ARGS (more flags for the Herald worker's node).
 */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { Job, Queue } from 'bullmq';
import { bodyInput } from '../src/queue/job-input.js';
import { PIPE_JOB_NAME, type PipeJob } from '../src/queue/pipe-messages.js';
import { sentLogKey } from '../src/redis/keys.js';
import { addTestMember, createTestChannel, createTestGuild } from '../test/helpers/directory.js';
import { createTestBot, startTestApp } from '../test/helpers/test-app.js';
import { cpuMicrosPerMessage, cpuTimes, formatCpu, pidOnPort } from './lib/cpu.js';
import { procfileNodeFlags, spawnProcess } from './lib/processes.js';

const N = Number(process.env.BENCH_MESSAGES ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_LATENCY_WARMUP_SECONDS ?? 1);
const MEMORY_MESSAGES = Number(process.env.BENCH_MEMORY_MESSAGES ?? 0);
const PROF_DIR = process.env.BENCH_PROF ?? '';
const CONCURRENCY = 16;

// A GitLab push event with 20 commits (50 KB, CJK commit messages), as a sender posts it; a job
// carries its bytes as the ingest writes them (queue/job-input.ts: deflated, base64).
const bytes = readFileSync(new URL('../test/fixtures/gitlab/push-large.json', import.meta.url));
const body = bodyInput(bytes);
// The same body as jobs carried it before inputs were deflated (base64 only; workers still read
// it): Herald drains these too, in the same rounds, to show what deflating changed.
const plainBody = { input: bytes.toString('base64'), input_encoding: 'base64' as const };
const cardUrl = new URL('../test/fixtures/gitlab/push-card.json.twig', import.meta.url);
const card = readFileSync(cardUrl, 'utf8');

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

const app = await startTestApp('bench_worker', { LOG_LEVEL: 'warn' });
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

const job = (input: Pick<PipeJob, 'input' | 'input_encoding'> = body): PipeJob => ({
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
  ...input,
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

const finished = async (q: Queue): Promise<number> => {
  const c = await q.getJobCounts('completed', 'failed');
  return (c.completed ?? 0) + (c.failed ?? 0);
};
async function waitFinished(q: Queue, target: number): Promise<void> {
  while ((await finished(q)) < target) await new Promise((r) => setTimeout(r, 20));
}

/**
 * Adds N jobs to the paused queue, releases them to `worker`, and times until all are done
 * (msg/s); also how much CPU each process spent per message meanwhile.
 */
async function drainRate(
  q: Queue,
  worker: number,
  make: () => PipeJob = job,
): Promise<{ rate: number; cpu: Record<string, number> }> {
  await q.pause();
  const before = await finished(q);
  await addBulk(q, N, make);
  const pids = { worker, store: storePid, redis: redisPid, 'bench+sink': process.pid };
  const cpuBefore = cpuTimes(pids);
  const start = performance.now();
  await q.resume();
  await waitFinished(q, before + N);
  const rate = N / ((performance.now() - start) / 1000);
  return { rate, cpu: cpuMicrosPerMessage(cpuBefore, cpuTimes(pids), N) };
}

const env = {
  REDIS_URL: app.config.redisUrl,
  REDIS_PREFIX: app.config.redisPrefix,
  WORKER_CONCURRENCY: String(CONCURRENCY),
};
const mongo = new URL(app.config.mongoUrl);
const storePid = pidOnPort(Number(mongo.port || 27017));
const redisPid = pidOnPort(Number(new URL(app.config.redisUrl).port || 6379));
mongo.pathname = `/herald_test_${app.config.redisPrefix.replace(/^herald-test-/, '')}`;

// --- The three workers, each in its own process.
const noopQueue = new Queue('bench-noop', {
  connection: app.res.redis.duplicate(),
  prefix: app.config.redisPrefix,
});
const noop = await spawnProcess('bench/lib/noop-worker.ts', { ...env, BENCH_QUEUE: 'bench-noop' }, 'ready');
const refQueue = new Queue('bench-reference', {
  connection: app.res.redis.duplicate(),
  prefix: app.config.redisPrefix,
});
const reference = await spawnProcess(
  'bench/lib/reference-worker.ts',
  {
    ...env,
    BENCH_QUEUE: 'bench-reference',
    BENCH_TEMPLATE_PATH: cardUrl.pathname,
    BENCH_SINK_URL: sinkUrl,
    BENCH_SINK_TOKEN: 'bench-token',
  },
  'ready',
  procfileNodeFlags('worker'),
);
/** Asks the reference worker a question (a job by that name) and returns its answer. */
async function askReference<T>(name: string, data: object = {}): Promise<T> {
  const asked = await refQueue.add(name, data);
  for (;;) {
    const j = await Job.fromId(refQueue, asked.id as string);
    if (j?.finishedOn) {
      if (j.failedReason) throw new Error(`reference ${name}: ${j.failedReason}`);
      return j.returnvalue as T;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
type RefStats = Record<'messages' | 'decode' | 'parse' | 'render' | 'card' | 'body' | 'post', number>;
const herald = await spawnProcess(
  'src/bin/worker.ts',
  {
    ...env,
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    MONGO_URL: mongo.toString(),
    LOG_LEVEL: 'info',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
  },
  '"worker started"',
  [
    ...procfileNodeFlags('worker'),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
    ...(PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROF_DIR}`] : []),
  ],
);
const metricsPort = Number(/"port":(\d+)/.exec(herald.output())?.[1]);
const workerMetrics = (): Promise<string> =>
  fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());

// Warm-up: compile, caches, connections, JIT.
await addBulk(queue, 200, job);
await waitFinished(queue, 200);
await addBulk(queue, 200, () => job(plainBody));
await waitFinished(queue, 400);
await addBulk(noopQueue, 200, job);
await waitFinished(noopQueue, 200);
await addBulk(refQueue, 200, job);
await waitFinished(refQueue, 200);

// --- 1. Throughput, alternating rounds: reference and Herald back to back, then the two arms
// kept for information.
type Arm = 'reference' | 'herald' | 'noop' | 'plain';
const rates: Record<Arm, number[]> = { reference: [], herald: [], noop: [], plain: [] };
const cpuRounds: Record<Arm, Array<Record<string, number>>> = {
  reference: [],
  herald: [],
  noop: [],
  plain: [],
};
const refSteps: RefStats = { messages: 0, decode: 0, parse: 0, render: 0, card: 0, body: 0, post: 0 };
const record = (arm: Arm, result: { rate: number; cpu: Record<string, number> }) => {
  rates[arm].push(result.rate);
  cpuRounds[arm].push(result.cpu);
};
for (let r = 0; r < ROUNDS; r++) {
  const before = await askReference<RefStats>('stats');
  record('reference', await drainRate(refQueue, reference.pid));
  const after = await askReference<RefStats>('stats');
  for (const k of Object.keys(refSteps) as Array<keyof RefStats>) refSteps[k] += after[k] - before[k];
  record('herald', await drainRate(queue, herald.pid));
  record('noop', await drainRate(noopQueue, noop.pid));
  record('plain', await drainRate(queue, herald.pid, () => job(plainBody)));
}
// The whole cost of a POST, measured alone in the reference process (its socket writes and
// answer parsing happen outside the job's own code, between other jobs' steps).
const postAlone = await askReference<number>('post-alone', { n: 2000, concurrency: CONCURRENCY });
/** Mean CPU per message of each process over the rounds. */
const meanCpu = (rounds: Array<Record<string, number>>): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const k of Object.keys(rounds[0] ?? {})) {
    out[k] = Math.round(rounds.reduce((a, c) => a + (c[k] ?? 0), 0) / rounds.length);
  }
  return out;
};
const cpu = {
  reference: meanCpu(cpuRounds.reference),
  herald: meanCpu(cpuRounds.herald),
  noop: meanCpu(cpuRounds.noop),
  plain: meanCpu(cpuRounds.plain),
};
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * What Redis holds per finished job that the queue keeps (MEMORY USAGE of the job's hash, over
 * 20 of them), in bytes: the no-op worker's keep their input, Herald's drop it once delivered
 * (src/workers/recovery/drop-inputs.ts). SAMPLES 0 counts every field: by default Redis sizes a hash from
 * 5 of its fields, and a job hash has about a dozen, so the one that holds the input was missed
 * or counted several times over (848 bytes, or 22.9 KB, for a job holding 8.7 KB of input).
 */
async function keptJobBytes(q: Queue): Promise<number> {
  const jobs = await q.getCompleted(0, 19);
  const sizes = await Promise.all(
    jobs.map(async (j) => Number(await app.res.redis.memory('USAGE', q.toKey(j.id as string), 'SAMPLES', 0))),
  );
  return sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length);
}
const keptBytes = { noop: await keptJobBytes(noopQueue), herald: await keptJobBytes(queue) };

// --- 2. Latency at RATE messages per second, with memory samples of the worker process.
const mem: Array<{ rss: number; heap: number }> = [];
const sample = async () => {
  const text = await workerMetrics();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 2 ** 20;
  mem.push({
    rss: value('herald_process_process_resident_memory_bytes'),
    heap: value('herald_process_nodejs_heap_size_used_bytes'),
  });
};
interface LatencyRun {
  /** accepted -> done (Herald: sent_at; no-op: BullMQ's finishedOn), sorted, in ms. */
  readonly total: number[];
  /** accepted -> taken (BullMQ's processedOn), sorted. */
  readonly waits: number[];
  /** taken -> done, sorted. */
  readonly works: number[];
  /** How late this process added each message against its schedule, sorted. */
  readonly lateness: number[];
}

const latencyTotal = RATE * LATENCY_SECONDS;
/**
 * Messages added at the same rate before the measured ones, and not counted: each worker has sat
 * idle before its run (the other one's run, the record flush), and what is measured is the
 * steady rate, not the first seconds after idling (a collection of the garbage left from before,
 * young-generation sizing).
 */
const warmupTotal = Math.round(RATE * WARMUP_SECONDS);

/**
 * Adds RATE jobs per second to `q` for WARMUP_SECONDS + LATENCY_SECONDS, waits until all are
 * finished, and reads the times of the last LATENCY_SECONDS' jobs from Redis. `doneAt` tells
 * when a job was done from its return value and BullMQ's finishedOn.
 */
async function latencyRun(
  q: Queue,
  doneAt: (returnvalue: string | null, finishedOn: string | null) => number | undefined,
  onMeasuring: () => void = () => {},
): Promise<LatencyRun> {
  const accepted: PipeJob[] = [];
  const all = warmupTotal + latencyTotal;
  const before = await finished(q);
  // Added every 2 ms as they fall due (one job per tick at 500/s), as requests reach the ingest
  // one by one, not in bursts.
  const tickMs = 2;
  const perTick = (RATE * tickMs) / 1000;
  const start = Date.now();
  let measuring = false;
  while (accepted.length < all) {
    if (!measuring && accepted.length >= warmupTotal) {
      measuring = true;
      onMeasuring();
    }
    const due = Math.min(all, Math.floor(((Date.now() - start) / tickMs + 1) * perTick));
    const batch: Array<{ name: typeof PIPE_JOB_NAME; data: PipeJob; opts: { jobId: string } }> = [];
    while (accepted.length < due) {
      const data = job();
      accepted.push(data);
      batch.push({ name: PIPE_JOB_NAME, data, opts: { jobId: data.msg_id } });
    }
    if (batch.length > 0) await q.addBulk(batch);
    await new Promise((r) => setTimeout(r, tickMs));
  }
  await waitFinished(q, before + all);
  // Read from Redis in pipelined batches rather than one store read per message.
  const run: LatencyRun = { total: [], waits: [], works: [], lateness: [] };
  const measured = accepted.slice(warmupTotal);
  for (let i = 0; i < measured.length; i += 500) {
    const batch = measured.slice(i, i + 500);
    const replies = await batch
      .reduce(
        (p, a) => p.hmget(q.toKey(a.msg_id), 'returnvalue', 'processedOn', 'finishedOn'),
        app.res.redis.pipeline(),
      )
      .exec();
    batch.forEach((a, k) => {
      const [raw, processedOn, finishedOn] = (replies?.[k]?.[1] ?? []) as Array<string | null>;
      const done = doneAt(raw ?? null, finishedOn ?? null);
      if (done === undefined) return;
      run.total.push(done - a.accepted_at);
      if (processedOn) {
        run.waits.push(Number(processedOn) - a.accepted_at);
        run.works.push(done - Number(processedOn));
      }
    });
  }
  // Message i is due at start + i / RATE s. This process also answers as the relay sink on the
  // same 2 cores; when it runs late, the messages that fell due meanwhile reach the worker as one
  // burst, and the tail includes the worker draining such bursts.
  for (const [i, a] of accepted.entries()) {
    if (i >= warmupTotal) run.lateness.push(a.accepted_at - (start + (i * 1000) / RATE));
  }
  for (const xs of [run.total, run.waits, run.works, run.lateness]) xs.sort((a, b) => a - b);
  return run;
}

// The baseline first, on its own: what BullMQ alone adds on this machine at this rate.
const noopLatency = await latencyRun(noopQueue, (_raw, finishedOn) =>
  finishedOn ? Number(finishedOn) : undefined,
);
const sampler = setInterval(() => void sample(), 1000);
// The worker's garbage collection pauses over the measured messages, from its own metrics
// (prom-client's nodejs_gc_duration_seconds): a tail usually lines up with them.
interface GcTotals {
  readonly count: Record<string, number>;
  readonly seconds: Record<string, number>;
  /** Pauses longer than 10 ms. */
  readonly long: number;
}
const gcTotals = async (): Promise<GcTotals> => {
  const text = await workerMetrics();
  const totals = { count: {} as Record<string, number>, seconds: {} as Record<string, number>, long: 0 };
  const gc = /^herald_process_nodejs_gc_duration_seconds_(sum|count|bucket)\{([^}]*)\} (\S+)$/gm;
  for (const [, what, labels = '', value] of text.matchAll(gc)) {
    const kind = /kind="([^"]+)"/.exec(labels)?.[1] ?? '?';
    const le = /le="([^"]+)"/.exec(labels)?.[1];
    if (what === 'sum') totals.seconds[kind] = Number(value);
    if (what === 'count') totals.count[kind] = (totals.count[kind] ?? 0) + Number(value);
    // pauses over 10 ms: all minus those within the 0.01 s bucket
    if (what === 'bucket' && le === '+Inf') totals.long += Number(value);
    if (what === 'bucket' && le === '0.01') totals.long -= Number(value);
  }
  return totals;
};
let gcBefore: Promise<GcTotals> | undefined;
// sent_at, as the job's return value (the outcome the worker also writes to the delivery record).
const heraldLatency = await latencyRun(
  queue,
  (raw) => {
    const sentAt = typeof raw === 'string' ? (JSON.parse(raw) as { sent_at?: number }).sent_at : undefined;
    return typeof sentAt === 'number' ? sentAt : undefined;
  },
  () => {
    gcBefore = gcTotals();
  },
);
clearInterval(sampler);
const gcAfter = await gcTotals();
const gcStart = (await gcBefore) ?? gcAfter;
const gcLine = (['major', 'minor', 'incremental'] as const)
  .map((kind) => {
    const n = (gcAfter.count[kind] ?? 0) - (gcStart.count[kind] ?? 0);
    const ms = ((gcAfter.seconds[kind] ?? 0) - (gcStart.seconds[kind] ?? 0)) * 1000;
    return `${kind} ${n} (${ms.toFixed(0)} ms)`;
  })
  .join(', ');
// Sent records are written behind the jobs (src/workers/recovery/sent-log.ts): wait until all are in
// before the next phase. Asked of Redis (the log is empty once every record is stored): counting
// records in the store while it writes them would load the store that the flusher is waiting on.
const logKey = sentLogKey(app.config.redisPrefix);
const recordsDeadline = Date.now() + 120_000;
while (Date.now() < recordsDeadline && (await app.res.redis.xlen(logKey)) > 0) {
  await new Promise((r) => setTimeout(r, 200));
}
const pctOf = (xs: number[], p: number) =>
  Math.round(xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN);
const late = (xs: number[], p: number) => Math.max(0, pctOf(xs, p));

// --- 3. Optional long run for memory.
// Counted from the worker's own metrics: the queue keeps at most PIPE_JOB_KEEP_COMPLETED_COUNT
// completed jobs, fewer than this run finishes.
const workerDone = async (): Promise<number> => {
  const text = await workerMetrics();
  let total = 0;
  for (const m of text.matchAll(/^herald_pipe_messages_(?:sent|failed)_total\{[^}]*\} (\S+)$/gm)) {
    total += Number(m[1]);
  }
  return total;
};
if (MEMORY_MESSAGES > 0) {
  const base = await workerDone();
  const sampler2 = setInterval(() => void sample(), 5000);
  // Fed so that at most ~5000 wait at a time, as a steady load would arrive (100,000 jobs at once
  // would also hold about 1 GB in Redis).
  let fed = 0;
  for (;;) {
    const done = (await workerDone()) - base;
    if (done >= MEMORY_MESSAGES) break;
    if (fed < MEMORY_MESSAGES && fed - done < 5000) {
      const n = Math.min(1000, MEMORY_MESSAGES - fed);
      await addBulk(queue, n, job);
      fed += n;
    } else {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  clearInterval(sampler2);
}

const fmt = (x: number) => x.toFixed(1);
/**
 * The highest ratio this machine allows, whatever the worker's own code costs: with a worker
 * that took no CPU at all, the rest of Herald's per-message CPU in the last round (Redis, the
 * store, and the relay sink in this process, which the no-op never calls) would still have to
 * fit on the machine's cores. Every process here shares them, so that is a ceiling on the rate.
 */
function ceilingLine(): string {
  const { worker: _worker, ...others } = cpu.herald;
  const otherMicros = Object.values(others).reduce((a, b) => a + b, 0);
  if (!(otherMicros > 0) || cpu.herald.worker === undefined)
    return 'ceiling:            n/a (CPU not readable)';
  const cores = availableParallelism();
  const ceilingRate = (cores * 1e6) / otherMicros;
  return `ceiling:            ${(ceilingRate / noopRate).toFixed(2)}x of the no-op drain even with a worker that used no CPU: Herald's other processes took ${otherMicros} µs per message (${formatCpu(others)}), at most ${fmt(ceilingRate)} msg/s on ${cores} cores`;
}
const noopRate = median(rates.noop);
const referenceRate = median(rates.reference);
const heraldRate = median(rates.herald);
const plainRate = median(rates.plain);
const roundRatios = rates.herald.map((h, i) => h / (rates.reference[i] as number));
const kb = (chars: number) => `${(chars / 1024).toFixed(1)} KB`;
const rounds = (xs: number[]) => `rounds: ${xs.map(fmt).join(', ')}`;
/**
 * The reference worker's CPU per message, step by step, in µs: its own timings over all rounds
 * for the steps in the job's code; the POST as measured alone (the in-job part is its share
 * spent building and handing over the request); what remains of the process's CPU (from
 * /proc) is BullMQ's fetch and completion, the event loop and garbage collection outside the
 * steps, beside the no-op drain's whole CPU for BullMQ alone.
 */
/**
 * The ratio that CPU per message alone implies (all processes of each arm): on a machine where
 * CPU is the limit, the rates go inversely as it. Steadier than the rates on a shared machine,
 * where other work takes a different share of the cores in each round.
 */
function cpuRatioLine(): string {
  const sum = (micros: Record<string, number>) => Object.values(micros).reduce((a, b) => a + b, 0);
  const [h, r] = [sum(cpu.herald), sum(cpu.reference)];
  if (!(h > 0 && r > 0) || cpu.herald.worker === undefined || cpu.reference.worker === undefined)
    return 'by CPU:             n/a (CPU not readable)';
  return `by CPU:             ${(r / h).toFixed(2)}x (all processes: Herald ${h} µs per message, the reference ${r}; workers alone ${(cpu.reference.worker / cpu.herald.worker).toFixed(2)}x: ${cpu.herald.worker} against ${cpu.reference.worker} µs)`;
}

function referenceStepLines(): string[] {
  const per = (us: number) => Math.round(us / Math.max(1, refSteps.messages));
  const steps = {
    'input decode (base64 + inflate + UTF-8)': per(refSteps.decode),
    'input JSON.parse': per(refSteps.parse),
    render: per(refSteps.render),
    'card JSON.parse + stringify': per(refSteps.card),
    'message body JSON.stringify + UTF-8': per(refSteps.body),
    POST: Math.round(postAlone),
  };
  const total = cpu.reference.worker;
  const counted = Object.values(steps).reduce((a, b) => a + b, 0);
  const lines = Object.entries(steps).map(([name, us]) => `    ${name}: ${us} µs`);
  lines[5] += ` (measured alone: ${CONCURRENCY} concurrent POSTs of an encoded body; of it ${per(refSteps.post)} µs in the job's own code)`;
  lines.push(
    total === undefined
      ? '    BullMQ and the rest: n/a (CPU not readable)'
      : `    BullMQ and the rest (process total ${total} µs less the above): ${total - counted} µs; the no-op drain's worker: ${cpu.noop.worker ?? 'n/a'} µs`,
  );
  return lines;
}
process.stdout.write(
  [
    `messages: ${N} per round, ${ROUNDS} rounds (GitLab push card, 20 commits; relay to a local HTTP sink; concurrency ${CONCURRENCY}; each worker in its own process)`,
    `job input: the ${kb(bytes.length)} body as ${kb(body.input.length)} of deflated base64 (${body.input_encoding}); before deflating, ${kb(plainBody.input.length)} of base64`,
    `reference worker:   ${fmt(referenceRate)} msg/s (${rounds(rates.reference)}), the same jobs, template and sink as Herald's`,
    `Herald worker:      ${fmt(heraldRate)} msg/s (${rounds(rates.herald)})`,
    `ratio:              ${median(roundRatios).toFixed(2)}x of the reference, median of the rounds' (rounds: ${roundRatios.map((x) => x.toFixed(2)).join(', ')}) (goal >= 0.9x)`,
    cpuRatioLine(),
    `no-op BullMQ drain: ${fmt(noopRate)} msg/s (${rounds(rates.noop)}); Herald ${(heraldRate / noopRate).toFixed(2)}x of it, for information`,
    `Herald, base64 input: ${fmt(plainRate)} msg/s (${rounds(rates.plain)}); deflated input drains ${(heraldRate / plainRate).toFixed(2)}x as fast`,
    `CPU per message, mean of the rounds: reference: ${formatCpu(cpu.reference) || 'n/a'}`,
    `                                     Herald: ${formatCpu(cpu.herald) || 'n/a'}`,
    `                                     no-op: ${formatCpu(cpu.noop) || 'n/a'}`,
    `                       Herald, base64 input: ${formatCpu(cpu.plain) || 'n/a'}`,
    'reference worker CPU per message, step by step:',
    ...referenceStepLines(),
    ceilingLine(),
    `Redis per delivered job the queue keeps: no-op ${kb(keptBytes.noop)} (with its input), Herald ${kb(keptBytes.herald)} (input dropped once delivered)`,
    `accept-to-sent at ${RATE} msg/s for ${LATENCY_SECONDS} s, after ${WARMUP_SECONDS} s at that rate not counted (${heraldLatency.total.length} of ${latencyTotal} messages sent): p50 ${pctOf(heraldLatency.total, 50)} ms, p99 ${pctOf(heraldLatency.total, 99)} ms, max ${heraldLatency.total.at(-1)} ms (goal p99 < 15 ms)`,
    `                    of which in the queue (accepted -> taken) p50 ${pctOf(heraldLatency.waits, 50)} ms, p99 ${pctOf(heraldLatency.waits, 99)} ms; in the worker (taken -> sent) p50 ${pctOf(heraldLatency.works, 50)} ms, p99 ${pctOf(heraldLatency.works, 99)} ms`,
    `                    the producer ran late on its schedule by p50 ${late(heraldLatency.lateness, 50)} ms, p99 ${late(heraldLatency.lateness, 99)} ms, max ${late(heraldLatency.lateness, 100)} ms (late messages arrive together)`,
    `                    worker garbage collection over those messages: ${gcLine}; pauses over 10 ms: ${gcAfter.long - gcStart.long}`,
    `no-op accept-to-done at the same rate (${noopLatency.total.length} of ${latencyTotal}): p50 ${pctOf(noopLatency.total, 50)} ms, p99 ${pctOf(noopLatency.total, 99)} ms, max ${noopLatency.total.at(-1)} ms; producer late p99 ${late(noopLatency.lateness, 99)} ms`,
    `worker memory (MiB, per sample): rss ${mem.map((m) => fmt(m.rss)).join(' ')}`,
    `                                 heap ${mem.map((m) => fmt(m.heap)).join(' ')}`,
    MEMORY_MESSAGES > 0
      ? `memory run: ${MEMORY_MESSAGES} further messages`
      : 'memory run: skipped (BENCH_MEMORY_MESSAGES=0)',
    '',
  ].join('\n'),
);
await Promise.all([noop.stop(), reference.stop(), herald.stop()]);
for (const q of [noopQueue, refQueue]) {
  await q.obliterate({ force: true });
  await q.close();
}
await app.close();
sink.close();
process.exit(0);
