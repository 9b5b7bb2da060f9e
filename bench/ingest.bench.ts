// `npm run bench:ingest`: send-pipemsg requests per second and p50/p99 latency at 64
// connections, against a baseline Koa app doing the minimum an ingest endpoint must do
// (koa-body JSON parse + ajv + one Redis GET + one BullMQ add), measured in the same run,
// alternating baseline and Herald runs. Each server is its own child process on loopback; this
// process only drives the load (autocannon). Bounded: ROUNDS x 2 runs of SECONDS each.
// Not a test: it prints numbers and the ratio Herald/baseline (goal: >= 1.0x, p99 < 25 ms).
//
// Herald runs twice per round, on two pipes of the same server: one that captures its payloads
// (the default, docs/pipes.md "Captured payloads") and one with capture off; the ratio of the
// two, per round, is what capturing costs. BENCH_BODY_FILE=<json file> sends that file instead
// of the small KMarkdown body, to a pipe with a template (the whole body is its input; the
// baseline then checks only that the body is an object, and queues all of it).
//
// A third Herald run per round sends to a pipe that requires a GitHub signature
// (X-Hub-Signature-256, docs/pipes.md "Verified senders"), capture off like the second: the ratio
// signed/unsigned, per round, is what verifying the signature costs (goal: >= 0.9x).
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cpuPerMessage, cpuTimes, pidOnPort } from './lib/cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 64;
const WARMUP_SECONDS = 2;
const BODY_FILE = process.env.BENCH_BODY_FILE;
/** BENCH_ONLY=no-capture,signed: only these runs (of baseline, herald, no-capture, signed). */
const ONLY = process.env.BENCH_ONLY?.split(',').map((n) => n.trim());
const BODY = BODY_FILE
  ? readFileSync(BODY_FILE, 'utf8')
  : JSON.stringify({ content: 'Pipeline **#4711** passed on `main` in 3m 12s' });

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Cannon = (opts: Record<string, unknown>) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Starts a child server and waits for its ready message (over IPC). Its stdout (Herald's request
 * log, one JSON line per request as in production) goes to /dev/null, not through this process.
 */
function startServer(kind: 'herald' | 'baseline', env: Record<string, string>) {
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const child = spawn(
    process.execPath,
    [...prof, '--import', 'tsx', fileURLToPath(import.meta.url), `serve-${kind}`],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  return new Promise<{ child: ChildProcess } & Ready>((resolve, reject) => {
    child.once('message', (m: Ready) => resolve({ child, ...m }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code})`)));
  });
}

/** What a child server tells once it listens. */
interface Ready {
  port: number;
  token: string;
  tokenNoCapture: string;
  /** The signed pipe (capture off): its token and GitHub signing secret. */
  tokenSigned: string;
  signingSecret: string;
}

/** The child's CPU time so far (user + system), in µs. */
function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m: { cpu: number }) => resolve(m.cpu));
    child.send('cpu');
  });
}

/** Redis's pid, for its CPU per request (the same server serves both apps' calls). */
const redisPid = pidOnPort(Number(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379').port || 6379));

/** Socket reads Redis has done so far (INFO stats): how many writes its clients sent it. */
async function redisReads(): Promise<number> {
  const { benchRedis } = await import('./lib/redis.js');
  const client = benchRedis('command');
  await client.connect();
  try {
    return Number(/total_reads_processed:(\d+)/.exec(await client.info('stats'))?.[1]);
  } finally {
    client.disconnect();
  }
}

async function run(server: ChildProcess, url: string, seconds: number, headers: Record<string, string> = {}) {
  const reads0 = await redisReads();
  const cpu0 = await cpuOf(server);
  const others0 = cpuTimes({ redis: redisPid, 'load generator': process.pid });
  const r = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...headers },
    body: BODY,
  });
  const cpu = (await cpuOf(server)) - cpu0;
  const others = cpuPerMessage(
    others0,
    cpuTimes({ redis: redisPid, 'load generator': process.pid }),
    r.requests.total,
  );
  const readsPerRequest = ((await redisReads()) - reads0) / r.requests.total;
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`non-2xx ${r.non2xx}, errors ${r.errors}`);
  // Server CPU per request: robust to other load on the machine, unlike req/s. Redis and the load
  // generator share the machine's cores with the server, so theirs is printed too.
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUs: cpu / r.requests.total,
    others: `${others}, ${readsPerRequest.toFixed(2)} Redis reads`,
  };
}

async function main() {
  const tag = randomBytes(4).toString('hex');
  const env = {
    ADMIN_TOKEN: randomBytes(24).toString('base64url'),
    REDIS_PREFIX: `herald-bench-${tag}`,
    MONGO_URL: `mongodb://127.0.0.1:27017/herald_bench_${tag}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    SECRETS_KEY: randomBytes(32).toString('hex'),
  };
  const herald = await startServer('herald', env);
  const baseline = await startServer('baseline', env);
  try {
    const sendUrl = (token: string) =>
      `http://127.0.0.1:${herald.port}/api/v3/message/send-pipemsg?access_token=${token}`;
    const heraldUrl = sendUrl(herald.token);
    const noCaptureUrl = sendUrl(herald.tokenNoCapture);
    const signedUrl = sendUrl(herald.tokenSigned);
    // The body is the same on every request, so is its signature; the server verifies each one.
    const signedHeaders = {
      'x-hub-signature-256': `sha256=${createHmac('sha256', herald.signingSecret).update(BODY).digest('hex')}`,
    };
    const baselineUrl = `http://127.0.0.1:${baseline.port}/ingest?access_token=${herald.token}`;
    process.stdout.write(
      `send-pipemsg vs baseline: ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s each, alternating; ` +
        `body ${Buffer.byteLength(BODY)} bytes${BODY_FILE ? ` (${BODY_FILE})` : ''}\n`,
    );
    await run(baseline.child, baselineUrl, WARMUP_SECONDS);
    await run(herald.child, heraldUrl, WARMUP_SECONDS);
    await run(herald.child, noCaptureUrl, WARMUP_SECONDS);
    await run(herald.child, signedUrl, WARMUP_SECONDS, signedHeaders);
    type Name = 'baseline' | 'herald' | 'no-capture' | 'signed';
    const rows: Record<
      Name,
      Array<{ rps: number; p50: number; p99: number; cpuUs: number; others: string }>
    > = {
      baseline: [],
      herald: [],
      'no-capture': [],
      signed: [],
    };
    for (let i = 0; i < ROUNDS; i++) {
      // The Herald runs go in reverse order every other round, so none always follows the
      // baseline; the signed run always sits next to the unsigned one it is compared with.
      const heraldRuns = [
        ['herald', herald.child, heraldUrl, {}],
        ['no-capture', herald.child, noCaptureUrl, {}],
        ['signed', herald.child, signedUrl, signedHeaders],
      ] as const;
      for (const [name, server, url, headers] of [
        ['baseline', baseline.child, baselineUrl, {}] as const,
        ...(i % 2 === 0 ? heraldRuns : [...heraldRuns].reverse()),
      ].filter(([name]) => !ONLY || ONLY.includes(name))) {
        const r = await run(server, url, SECONDS, headers);
        rows[name].push(r);
        process.stdout.write(
          `  round ${i + 1} ${name.padEnd(10)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  server CPU ${r.cpuUs.toFixed(0)} µs/req (${r.others})\n`,
        );
      }
    }
    const summary = (name: Name) => ({
      rps: median(rows[name].map((r) => r.rps)),
      p50: median(rows[name].map((r) => r.p50)),
      p99: median(rows[name].map((r) => r.p99)),
      cpuUs: median(rows[name].map((r) => r.cpuUs)),
    });
    for (const name of ['baseline', 'herald', 'no-capture', 'signed'] as const) {
      if (rows[name].length === 0) continue;
      const m = summary(name);
      process.stdout.write(
        `median ${name.padEnd(10)} ${m.rps.toFixed(0)} req/s (p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.cpuUs.toFixed(0)} µs CPU/req)\n`,
      );
    }
    // Runs alternate, so each round's runs saw the same machine; the median of the per-round
    // ratios is steadier than a ratio of medians when other work shares the CPU.
    const ratioOf = (x: Name, y: Name, field: 'rps' | 'cpuUs') =>
      median(rows[x].map((r, k) => r[field] / rows[y][k]![field]));
    const ratio = (label: string, x: Name, y: Name, goal: string) => {
      if (rows[x].length === 0 || rows[y].length === 0) return;
      process.stdout.write(
        `ratio ${label} (median of rounds): ${ratioOf(x, y, 'rps').toFixed(2)}x req/s${goal}, ` +
          `${ratioOf(x, y, 'cpuUs').toFixed(2)}x server CPU per request\n`,
      );
    };
    ratio('herald/baseline', 'herald', 'baseline', ' (goal >= 1.00x; herald p99 goal < 25 ms)');
    ratio('capture on/off', 'herald', 'no-capture', '');
    ratio('signed/unsigned, GitHub signature, capture off', 'signed', 'no-capture', ' (goal >= 0.90x)');
  } finally {
    baseline.child.kill('SIGTERM');
    herald.child.kill('SIGTERM'); // the Herald child cleans its database and Redis prefix on SIGTERM
    await new Promise((r) => herald.child.once('exit', r));
  }
}

/**
 * Herald's web process with two pipes (budgets the load cannot exhaust): one capturing its
 * payloads (the default), one not. With BENCH_BODY_FILE both have a template.
 */
async function serveHerald() {
  const { createHttpHandler } = await import('../src/api/app.js');
  const { listen } = await import('../src/http/server.js');
  const { loadConfig } = await import('../src/config/index.js');
  const { createLogger } = await import('../src/log/logger.js');
  const { openResources } = await import('../src/resources.js');
  const { createBot } = await import('../src/domain/bots.js');
  const { createGuild, createChannel, addMember } = await import('../src/domain/directory/index.js');
  const { upsertUser } = await import('../src/domain/directory/index.js');
  const { createPipe } = await import('../src/domain/pipes/pipes.js');
  const config = loadConfig(process.env);
  const log = createLogger(config.logLevel);
  const res = await openResources(config, log);
  const { bot } = await createBot(res, { name: 'bench' });
  const owner = `${Date.now()}`;
  await upsertUser(res, owner, { username: 'owner' });
  const guild = await createGuild(res, { name: 'bench', user_id: owner });
  const channel = await createChannel(res, { guild_id: guild.id, name: 'ci', type: 1 });
  await addMember(res, guild.id, bot.user_id);
  const { createTemplate } = await import('../src/domain/templates/index.js');
  const template = BODY_FILE
    ? (await createTemplate(res, bot, { title: 'bench', content: '{{ data | length }} fields', msgtype: 1 }))
        .model
    : null;
  const pipe = (capture: boolean, signature?: { scheme: 'github' }) =>
    createPipe(res, {
      ...(signature
        ? { signature: { ...signature, secret: null, header: null, encoding: null, prefix: null } }
        : {}),
      bot_id: bot.id,
      title: 'bench',
      channel_id: channel.id,
      template_id: template?.id ?? null,
      rate_limit: { capacity: 1_000_000, per_second: 1_000_000 },
      capture,
    });
  const { access_token } = await pipe(true);
  const { access_token: tokenNoCapture } = await pipe(false);
  const signed = await pipe(false, { scheme: 'github' });
  const server = await listen(createHttpHandler(res), 0, '127.0.0.1');
  answerCpu();
  process.send?.({
    port: server.port,
    token: access_token,
    tokenNoCapture,
    tokenSigned: signed.access_token,
    signingSecret: signed.signing_secret,
  });
  process.on('SIGTERM', async () => {
    await server.close(1_000);
    await res.pipeRuntime.queue.obliterate({ force: true }).catch(() => {});
    let cursor = '0';
    do {
      const [next, keys] = await res.redis.scan(cursor, 'MATCH', `${config.redisPrefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await res.redis.del(...keys);
    } while (cursor !== '0');
    await res.store.dropDatabase();
    await res.close();
    process.exit(0);
  });
}

/** The minimum: parse JSON (koa-body), validate (ajv), one Redis GET, one BullMQ add. */
async function serveBaseline() {
  const { default: Koa } = await import('koa');
  const { koaBody } = await import('koa-body');
  const { Ajv } = await import('ajv');
  const { Queue } = await import('bullmq');
  const { createServer } = await import('node:http');
  const { randomUUID } = await import('node:crypto');
  const prefix = `${process.env.REDIS_PREFIX}-baseline`;
  const { benchRedis } = await import('./lib/redis.js');
  // Herald's command client: no offline queue, as the baseline had (and one retry per command).
  const redis = benchRedis('command');
  await redis.connect();
  await redis.set(`${prefix}:token`, 'pipe-1');
  const producer = benchRedis('command');
  await producer.connect();
  const queue = new Queue('baseline', { connection: producer, prefix });
  const validate = new Ajv().compile(
    BODY_FILE
      ? { type: 'object' }
      : { type: 'object', properties: { content: { type: 'string', minLength: 1 } }, required: ['content'] },
  );
  const app = new Koa();
  app.use(koaBody({ jsonLimit: 1024 * 1024 }));
  app.use(async (ctx) => {
    if (!validate(ctx.request.body)) {
      ctx.status = 400;
      return;
    }
    const pipe = await redis.get(`${prefix}:token`);
    const msgId = randomUUID();
    const input = BODY_FILE ? ctx.request.body : ctx.request.body.content;
    await queue.add('m', { msg_id: msgId, pipe, input }, { jobId: msgId });
    ctx.body = {
      code: 0,
      message: '操作成功',
      data: { msg_id: msgId, msg_timestamp: Date.now(), nonce: '' },
    };
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  answerCpu();
  process.send?.({
    port: typeof address === 'object' && address ? address.port : 0,
    token: '',
    tokenNoCapture: '',
    tokenSigned: '',
    signingSecret: '',
  });
  process.on('SIGTERM', async () => {
    server.close();
    await queue.obliterate({ force: true }).catch(() => {});
    await redis.del(`${prefix}:token`);
    await queue.close();
    redis.disconnect();
    producer.disconnect();
    process.exit(0);
  });
}

/** Child side of cpuOf(). */
function answerCpu() {
  process.on('message', () => {
    const u = process.cpuUsage();
    process.send?.({ cpu: u.user + u.system });
  });
}

const role = process.argv[2];
if (role === 'serve-herald') await serveHerald();
else if (role === 'serve-baseline') await serveBaseline();
else await main();
