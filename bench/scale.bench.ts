/**
 * `npm run bench:scale`: what one delivered pipe message costs Redis, and msg/s with 1, 2 and 4
 * worker processes, side by side (issue 22; docs/scaling.md, "Benchmark").
 *
 * Each message goes the whole way: POST send-pipemsg to the web app in this process (pipe budget,
 * captured payload, BullMQ add), then a worker process (`src/bin/worker.ts`, as the Procfile runs
 * it) renders a small template and POSTs to a relay sink in this process, the sent log and its
 * flusher write the record. Per run: N messages are accepted into the paused queue (the ingest's
 * Redis cost), then the queue is resumed and timed until the sink has them all and the sent log is
 * flushed (the delivery's Redis cost). Costs are deltas of `INFO commandstats` (every command
 * Redis ran, the commands inside Lua scripts included) and of `INFO stats`
 * total_net_input_bytes / total_net_output_bytes, divided by N. A last pass with one worker
 * watches MONITOR to tell the commands clients sent (round trips) from those scripts ran, by name.
 *
 * Redis: a private redis-server this bench starts (nothing else on it, so the deltas are Herald's
 * alone), or BENCH_REDIS_URL (then anything else on that Redis counts too). Modes:
 * BENCH_REDIS_MODES (default `standalone`; `standalone,cluster` runs both, side by side): `cluster`
 * is the dev cluster of `scripts/dev-services.sh cluster` with BENCH_PARTITIONS (16) partitions,
 * its masters' counters summed, and each master's share of the commands printed.
 *
 * Environment: BENCH_MESSAGES (default 2000), BENCH_BOTS (bots the messages are spread over, each
 * with its pipe, default 32), BENCH_WORKERS (default 1,2,4), BENCH_CONCURRENCY
 * (each worker's WORKER_CONCURRENCY, default 16), BENCH_MONITOR_MESSAGES (default 500; 0 skips
 * the MONITOR pass), BENCH_TOP (names per breakdown, default 15).
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { DEFAULT_REDIS_PREFIX } from '../src/config/defaults.js';
import { sentLogKey } from '../src/redis/keys.js';
import { addTestMember, createTestChannel, createTestGuild } from '../test/helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../test/helpers/test-app.js';
import { type BenchProcess, procfileNodeFlags, spawnProcess } from './lib/processes.js';

const N = Number(process.env.BENCH_MESSAGES ?? 2000);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MONITOR_MESSAGES = Number(process.env.BENCH_MONITOR_MESSAGES ?? 500);
/** How many command names each breakdown lists. */
const TOP = Number(process.env.BENCH_TOP ?? 15);
/** Bots (each with its pipe) the messages are spread over. */
const BOTS = Number(process.env.BENCH_BOTS ?? 32);
const MODES = (process.env.BENCH_REDIS_MODES ?? 'standalone').split(',').map((m) => m.trim());
/** Requests in flight at once from this process to the web app. */
const SENDERS = 32;
/** The goal (issue 22): Redis commands per delivered message. */
const GOAL = 20;

// --- Redis, per mode.
interface RedisTarget {
  readonly mode: string;
  /** What the web app and the workers are given (REDIS_URL; a cluster or sentinel mode adds its settings). */
  readonly env: Readonly<Record<string, string>>;
  /** Each node whose counters are read and summed (a cluster: every master), as URLs. */
  readonly nodes: readonly string[];
  /** Whether only this bench uses it. */
  readonly private: boolean;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * The dev cluster of `scripts/dev-services.sh cluster` (3 masters, 3 replicas), started if down,
 * with BENCH_PARTITIONS pipe queue partitions (default 16). Shared: keys of other users count too.
 */
async function startCluster(): Promise<RedisTarget> {
  execFileSync('bash', ['scripts/dev-services.sh', 'cluster'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const seeds = 'redis://127.0.0.1:7001,127.0.0.1:7002';
  const probe = new Redis('redis://127.0.0.1:7001');
  const masters = String(await probe.call('CLUSTER', 'NODES'))
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => (f[2] ?? '').includes('master') && !(f[2] ?? '').includes('fail'))
    .map((f) => `redis://${(f[1] as string).split('@')[0]}`)
    .sort();
  probe.disconnect();
  return {
    mode: 'cluster',
    env: {
      REDIS_MODE: 'cluster',
      REDIS_URL: seeds,
      REDIS_QUEUE_PARTITIONS: process.env.BENCH_PARTITIONS ?? '16',
    },
    nodes: masters,
    private: false,
    stop: async () => {},
  };
}

async function startRedis(mode: string): Promise<RedisTarget> {
  if (mode === 'cluster') return startCluster();
  if (mode !== 'standalone')
    throw new Error(`BENCH_REDIS_MODES: ${mode} is not supported (standalone, cluster)`);
  if (process.env.BENCH_REDIS_URL) {
    const url = process.env.BENCH_REDIS_URL;
    return { mode, env: { REDIS_URL: url }, nodes: [url], private: false, stop: async () => {} };
  }
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // Refused until redis-server listens: the loop below tries again.
  probe.on('error', () => {});
  for (let i = 0; ; i++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (err) {
      if (i > 100) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  probe.disconnect();
  const exited = new Promise((r) => child.on('exit', r));
  return {
    mode,
    env: { REDIS_URL: url },
    nodes: [url],
    private: true,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// --- Redis's counters.
interface RedisCounters {
  /** Summed over the nodes. */
  readonly calls: Map<string, number>;
  readonly inBytes: number;
  readonly outBytes: number;
  /** Each node's commands (all names), in `nodes` order. */
  readonly perNode: readonly number[];
}
async function counters(admins: readonly Redis[]): Promise<RedisCounters> {
  const calls = new Map<string, number>();
  let inBytes = 0;
  let outBytes = 0;
  const perNode: number[] = [];
  for (const admin of admins) {
    const [cmd, stats] = await Promise.all([admin.info('commandstats'), admin.info('stats')]);
    let nodeCalls = 0;
    for (const [, name = '', n] of cmd.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      calls.set(name, (calls.get(name) ?? 0) + Number(n));
      if (name !== 'info') nodeCalls += Number(n);
    }
    const stat = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
    inBytes += stat('total_net_input_bytes');
    outBytes += stat('total_net_output_bytes');
    perNode.push(nodeCalls);
  }
  return { calls, inBytes, outBytes, perNode };
}
interface Cost {
  /** Commands per message, by name. */
  readonly byName: Map<string, number>;
  readonly commands: number;
  readonly inBytes: number;
  readonly outBytes: number;
  /** Each node's commands per message, in `nodes` order. */
  readonly perNode: readonly number[];
}
function costPerMessage(a: RedisCounters, b: RedisCounters, n: number): Cost {
  const byName = new Map<string, number>();
  let commands = 0;
  for (const [name, calls] of b.calls) {
    // The bench's own reads of the counters are not the message's.
    if (name === 'info') continue;
    const d = (calls - (a.calls.get(name) ?? 0)) / n;
    if (d > 0) byName.set(name, d);
    commands += d;
  }
  return {
    byName,
    commands,
    inBytes: (b.inBytes - a.inBytes) / n,
    outBytes: (b.outBytes - a.outBytes) / n,
    perNode: b.perNode.map((c, i) => (c - (a.perNode[i] ?? 0)) / n),
  };
}
const addCosts = (a: Cost, b: Cost): Cost => {
  const byName = new Map(a.byName);
  for (const [k, v] of b.byName) byName.set(k, (byName.get(k) ?? 0) + v);
  return {
    byName,
    commands: a.commands + b.commands,
    inBytes: a.inBytes + b.inBytes,
    outBytes: a.outBytes + b.outBytes,
    perNode: a.perNode.map((c, i) => c + (b.perNode[i] ?? 0)),
  };
};

/** Lua script names by SHA-1, to name an EVALSHA: BullMQ's commands and Herald's .lua files. */
async function scriptNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const sha = (text: string) => createHash('sha1').update(text).digest('hex');
  const bullmq = new URL('../node_modules/bullmq/dist/esm/scripts/', import.meta.url);
  for (const file of readdirSync(bullmq).filter((f) => f.endsWith('.js') && f !== 'index.js')) {
    const mod = (await import(new URL(file, bullmq).href)) as Record<
      string,
      { name: string; content: string }
    >;
    for (const s of Object.values(mod)) if (s?.content) names.set(sha(s.content), `bullmq:${s.name}`);
  }
  const walk = (dir: URL) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(new URL(`${e.name}/`, dir));
      else if (e.name.endsWith('.lua')) names.set(sha(readFileSync(new URL(e.name, dir), 'utf8')), e.name);
    }
  };
  walk(new URL('../src/', import.meta.url));
  return names;
}

// --- The relay sink: answers 200 at once, counts what it took.
let sunk = 0;
let onSunk: () => void = () => {};
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    sunk++;
    onSunk();
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(`{"code":0,"message":"ok","data":{"msg_id":"u${sunk}"}}`);
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkAddress = sink.address();
const sinkUrl = `http://127.0.0.1:${typeof sinkAddress === 'object' && sinkAddress ? sinkAddress.port : 0}`;
const sunkReaches = (target: number) =>
  new Promise<void>((resolve) => {
    if (sunk >= target) return resolve();
    onSunk = () => {
      if (sunk >= target) resolve();
    };
  });

interface World {
  readonly app: TestApp;
  /** One pipe per bot; messages go round robin over them. */
  readonly tokens: readonly string[];
}
async function createWorld(target: RedisTarget): Promise<World> {
  // On a private Redis, the default key prefix: keys are in every command's arguments, and a
  // test's long unique prefix would inflate the bytes per message.
  const app = await startTestApp('bench_scale', {
    ...target.env,
    LOG_LEVEL: 'warn',
    ...(target.private ? { REDIS_PREFIX: DEFAULT_REDIS_PREFIX } : {}),
  });
  const guild = await createTestGuild(app);
  const channelId = (await createTestChannel(app, guild.id)).id;
  const tokens: string[] = [];
  // BOTS bots, each with its template and pipe: a bot's messages share one partition, so on a
  // cluster only several bots spread the queue over the shards.
  for (let b = 0; b < BOTS; b++) {
    const bot = await createTestBot(app, {
      name: `bench ${b}`,
      sink: 'relay',
      relay_url: sinkUrl,
      upstream_token: `bench-token-${b}`,
      rate_capacity: 1_000_000,
      rate_per_second: 1_000_000,
    });
    await addTestMember(app, guild.id, bot.bot.user_id as string);
    const tpl = await app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
      bot: bot.token,
      json: {
        title: 'ci',
        content: '**{{ project }}** #{{ build }}: {{ status }} on `{{ branch }}`',
        msgtype: 1,
      },
    });
    const pipe = await app.request<{ pipe: { id: string }; access_token: string }>(
      'POST',
      '/admin/api/pipe/create',
      {
        admin: true,
        json: {
          bot_id: bot.id,
          title: `bench ${b}`,
          channel_id: channelId,
          template_id: tpl.body.data.model.id,
          rate_limit: { capacity: 1_000_000, per_second: 1_000_000 },
        },
      },
    );
    if (pipe.status !== 200) throw new Error(`pipe create failed: ${pipe.text}`);
    tokens.push(pipe.body.data.access_token);
  }
  return { app, tokens };
}

/** `n` messages through send-pipemsg, SENDERS at a time. */
async function accept(world: World, n: number): Promise<void> {
  const urls = world.tokens.map(
    (token) => `${world.app.base}/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}`,
  );
  let next = 0;
  const sender = async () => {
    while (next < n) {
      const i = next++;
      const r = await fetch(urls[i % urls.length] as string, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ project: 'herald', build: i, status: 'passed', branch: 'main' }),
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`send-pipemsg ${r.status}: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
}

async function startWorkerProcesses(
  world: World,
  target: RedisTarget,
  count: number,
): Promise<BenchProcess[]> {
  const { config } = world.app;
  const mongo = new URL(config.mongoUrl);
  // The test app's own database (startTestApp names it): the open one, not an earlier mode's.
  const db = mongoose.connections
    .filter((c) => c.readyState === 1)
    .map((c) => c.name)
    .findLast((n) => n?.startsWith('herald_test_bench_scale'));
  if (!db) throw new Error('the bench app has no database');
  mongo.pathname = `/${db}`;
  return Promise.all(
    Array.from({ length: count }, () =>
      spawnProcess(
        'src/bin/worker.ts',
        {
          ...target.env,
          REDIS_PREFIX: config.redisPrefix,
          MONGO_URL: mongo.toString(),
          ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
          WORKER_CONCURRENCY: String(CONCURRENCY),
          LOG_LEVEL: 'info',
          METRICS_PORT: '0',
          HOST: '127.0.0.1',
        },
        '"worker started"',
        procfileNodeFlags('worker'),
      ),
    ),
  );
}

/** Completed jobs over every partition of the pipe queue. */
async function completedJobs(world: World): Promise<number> {
  const each = await Promise.all(
    world.app.res.pipeRuntime.queues.all.map((q) => q.getJobCounts('completed')),
  );
  return each.reduce((n, c) => n + (c.completed ?? 0), 0);
}

/** Until the sink has `target` messages, their jobs are completed and the sent log is flushed. */
async function delivered(world: World, target: number, jobsBefore: number, n: number): Promise<number> {
  await sunkReaches(target);
  const at = performance.now();
  const log = sentLogKey(world.app.config.redisPrefix);
  for (;;) {
    if ((await completedJobs(world)) >= jobsBefore + n && (await world.app.res.redis.xlen(log)) === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return at;
}

interface Run {
  readonly workers: number;
  readonly rate: number;
  readonly ingest: Cost;
  readonly delivery: Cost;
}

/** One measured run: N accepted into the paused queue, then drained by the workers. */
async function measure(world: World, admins: readonly Redis[], workers: number, n: number): Promise<Run> {
  const queues = world.app.res.pipeRuntime.queues.all;
  const jobsBefore = await completedJobs(world);
  const sunkBefore = sunk;
  await Promise.all(queues.map((q) => q.pause()));
  const c0 = await counters(admins);
  await accept(world, n);
  const c1 = await counters(admins);
  const start = performance.now();
  await Promise.all(queues.map((q) => q.resume()));
  const end = await delivered(world, sunkBefore + n, jobsBefore, n);
  const c2 = await counters(admins);
  return {
    workers,
    rate: n / ((end - start) / 1000),
    ingest: costPerMessage(c0, c1, n),
    delivery: costPerMessage(c1, c2, n),
  };
}

/** Commands clients sent (round trips) and those Lua scripts ran, per message, by name. */
interface Split {
  readonly sent: Map<string, number>;
  readonly inScripts: Map<string, number>;
  /** Per script: its calls and the commands it ran inside, per message. */
  readonly byScript: Map<string, { calls: number; inside: number }>;
}
async function monitorPass(world: World, nodes: readonly string[], n: number): Promise<Split> {
  const names = await scriptNames();
  const clients = nodes.map((url) => new Redis(url));
  const monitors = await Promise.all(clients.map((c) => c.monitor()));
  const sent = new Map<string, number>();
  const inScripts = new Map<string, number>();
  const byScript = new Map<string, { calls: number; inside: number }>();
  // MONITOR shows a script's call first, then the commands it runs (Redis runs one at a time).
  let script: { calls: number; inside: number } | undefined;
  const seen = (_time: string, args: string[], source: string) => {
    let name = (args[0] ?? '?').toLowerCase();
    if (name === 'info' || name === 'monitor') return;
    if (source.startsWith('lua')) {
      inScripts.set(name, (inScripts.get(name) ?? 0) + 1);
      if (script) script.inside++;
      return;
    }
    if (name === 'evalsha' || name === 'eval') {
      if (name === 'evalsha') name = `evalsha ${names.get(args[1] ?? '') ?? (args[1] ?? '').slice(0, 8)}`;
      script = byScript.get(name) ?? { calls: 0, inside: 0 };
      byScript.set(name, script);
      script.calls++;
    } else {
      script = undefined;
    }
    sent.set(name, (sent.get(name) ?? 0) + 1);
  };
  // One node's feed at a time keeps a script's inside commands after its call (a cluster's
  // nodes interleave): the pass is meant for one node, and counts the others' without that.
  for (const m of monitors) m.on('monitor', seen);
  const jobsBefore = await completedJobs(world);
  const sunkBefore = sunk;
  await accept(world, n);
  await delivered(world, sunkBefore + n, jobsBefore, n);
  for (const m of monitors) m.disconnect();
  for (const c of clients) c.disconnect();
  const per = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / n]));
  return {
    sent: per(sent),
    inScripts: per(inScripts),
    byScript: new Map([...byScript].map(([k, v]) => [k, { calls: v.calls / n, inside: v.inside / n }])),
  };
}

// --- Output.
const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const pad = (s: string, w: number) => s.padEnd(w);
const lpad = (s: string, w: number) => s.padStart(w);

function printRuns(target: RedisTarget, runs: readonly Run[]): void {
  const total = (r: Run) => addCosts(r.ingest, r.delivery);
  const head = runs.map((r) => lpad(`${r.workers} worker${r.workers > 1 ? 's' : ''}`, 12)).join('');
  console.log(
    `\nmode ${target.mode} (${target.private ? 'private redis-server' : target.nodes.join(', ')}), ${N} messages a run, WORKER_CONCURRENCY=${CONCURRENCY}`,
  );
  console.log(`${pad('', 40)}${head}`);
  const row = (label: string, cell: (r: Run) => string) =>
    console.log(`${pad(label, 40)}${runs.map((r) => lpad(cell(r), 12)).join('')}`);
  row('msg/s (delivery)', (r) => f1(r.rate));
  row('Redis commands / message (all)', (r) => f1(total(r).commands));
  row('  of them at ingest', (r) => f1(r.ingest.commands));
  row('  of them in delivery', (r) => f1(r.delivery.commands));
  row('bytes into Redis / message', (r) => kb(total(r).inBytes));
  row('bytes out of Redis / message', (r) => kb(total(r).outBytes));
  if (target.nodes.length > 1) {
    // How evenly the partitions spread the commands over the shards (goal: each within 20 % of even).
    row('% of the commands by node', (r) => {
      const perNode = total(r).perNode;
      const all = perNode.reduce((a, b) => a + b, 0) || 1;
      return perNode.map((c) => Math.round((100 * c) / all)).join('/');
    });
  }
  const first = runs[0];
  if (!first) return;
  console.log(`\ncommands per message by name (commandstats; script internals included), top ${TOP}:`);
  const top = [...total(first).byName].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [name] of top) row(`  ${name}`, (r) => f2(total(r).byName.get(name) ?? 0));
  // Where each name's calls fall, in the first run: accepting the message, or delivering it.
  console.log(
    `\n${pad(`the same, ${first.workers} worker(s), by phase`, 40)}${['ingest', 'delivery'].map((h) => lpad(h, 12)).join('')}`,
  );
  for (const [name] of top) {
    const cells = [first.ingest, first.delivery].map((c) => lpad(f2(c.byName.get(name) ?? 0), 12));
    console.log(`${pad(`  ${name}`, 40)}${cells.join('')}`);
  }
}

function printSplit(split: Split): void {
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const sent = sum(split.sent);
  console.log(
    `\nMONITOR, 1 worker, ${MONITOR_MESSAGES} messages: per message ${f1(sent)} commands sent by clients (goal <= ${GOAL}: ${sent <= GOAL ? 'met' : 'not met'}), ${f1(sum(split.inScripts))} run inside scripts`,
  );
  console.log(`sent by clients, by name (EVALSHA by script), top ${TOP}:`);
  for (const [name, v] of [...split.sent].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`  ${pad(name, 48)}${lpad(f2(v), 8)}`);
  }
  console.log('scripts: calls and the commands they ran inside, per message:');
  for (const [name, v] of [...split.byScript].sort(
    (a, b) => b[1].calls + b[1].inside - a[1].calls - a[1].inside,
  )) {
    console.log(
      `  ${pad(name.replace(/^evalsha /, ''), 48)}${lpad(f2(v.calls), 8)} calls${lpad(f2(v.inside), 8)} inside`,
    );
  }
  console.log(`run inside scripts, by name, top ${TOP}:`);
  for (const [name, v] of [...split.inScripts].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`  ${pad(name, 48)}${lpad(f2(v), 8)}`);
  }
}

const byMode: Array<{ mode: string; runs: Run[] }> = [];
for (const mode of MODES) {
  const target = await startRedis(mode);
  const admins = target.nodes.map((url) => new Redis(url));
  const world = await createWorld(target);
  const runs: Run[] = [];
  let split: Split | undefined;
  try {
    for (const count of WORKER_COUNTS) {
      const workers = await startWorkerProcesses(world, target, count);
      try {
        // Warm-up: compile, caches, connections, JIT; not counted.
        await measure(world, admins, count, Math.min(N, 300));
        runs.push(await measure(world, admins, count, N));
        if (count === 1 && MONITOR_MESSAGES > 0)
          split = await monitorPass(world, target.nodes, MONITOR_MESSAGES);
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
    }
  } finally {
    for (const a of admins) a.disconnect();
    await world.app.close();
    await target.stop();
  }
  printRuns(target, runs);
  if (split) printSplit(split);
  byMode.push({ mode, runs });
}
if (byMode.length > 1) {
  // The modes side by side: rates say little on 2 shared cores, commands per message more.
  console.log('\nmodes side by side (msg/s; commands per message):');
  console.log(`  ${pad('workers', 12)}${byMode.map((m) => lpad(m.mode, 24)).join('')}`);
  for (const count of WORKER_COUNTS) {
    const cells = byMode.map((m) => {
      const r = m.runs.find((x) => x.workers === count);
      return lpad(r ? `${f1(r.rate)}; ${f1(r.ingest.commands + r.delivery.commands)}` : '-', 24);
    });
    console.log(`  ${pad(String(count), 12)}${cells.join('')}`);
  }
}
sink.close();
process.exit(0);
