import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Deps } from '../../src/domain/deps.js';
import type { Logger } from '../../src/log/logger.js';
import { metricsFor } from '../../src/metrics/index.js';
import { PIPE_JOB_NAME, PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { BucketLeases } from '../../src/ratelimit/bucket-leases.js';
import { WorkerCaches } from '../../src/workers/caches.js';
import type { ProcessContext } from '../../src/workers/process-context.js';
import { SentLog } from '../../src/workers/recovery/sent-log.js';
import { RenderPool } from '../../src/workers/render-pool/render-pool.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, setUpRequest, type TestApp } from '../helpers/test-app.js';

/** A local HTTP server standing in for the relay target; `handler` decides each answer. */
export interface RelayServer {
  readonly url: string;
  readonly requests: Array<{
    headers: IncomingMessage['headers'];
    body: Record<string, unknown>;
    at: number;
  }>;
  handler: (body: Record<string, unknown>, res: ServerResponse, n: number) => void;
  close(): Promise<void>;
}

export async function startRelayServer(): Promise<RelayServer> {
  const state: RelayServer = {
    url: '',
    requests: [],
    handler: (body, res) => ok(res, `up-${String(body.nonce)}`),
    close: async () => {},
  };
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', () => {
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      state.requests.push({ headers: req.headers, body, at: Date.now() });
      state.handler(body, res, state.requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

export function ok(res: ServerResponse, msgId: string): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ code: 0, message: 'ok', data: { msg_id: msgId } }));
}

export function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export interface World {
  bot: { id: string; token: string; bot: Record<string, unknown> };
  guildId: string;
  channelId: string;
}

/** A bot that is a member of a guild with a text channel (everyone may view and send). */
export async function createWorld(
  app: TestApp,
  botBody: Record<string, unknown> = {},
  guildBody: Record<string, unknown> = {},
): Promise<World> {
  const bot = await createTestBot(app, botBody);
  const guild = await createTestGuild(app, guildBody);
  const channelId = (await createTestChannel(app, guild.id)).id;
  await addTestMember(app, guild.id, bot.bot.user_id as string);
  return { bot, guildId: guild.id, channelId };
}

/**
 * A world whose bot's sink is the relay at `relayUrl`, with a budget far above what a test sends
 * unless `bot` sets one (rate_capacity, rate_per_second).
 */
export function createRelayWorld(
  app: TestApp,
  relayUrl: string,
  bot: { name: string; upstream_token: string } & Record<string, unknown>,
): Promise<World> {
  return createWorld(app, {
    sink: 'relay',
    relay_url: relayUrl,
    rate_capacity: 1000,
    rate_per_second: 1000,
    ...bot,
  });
}

/** A pipe with a generous intake budget (tests measure the delivery side, not the door). */
export async function createPipe(
  app: TestApp,
  w: World,
  body: Record<string, unknown> = {},
): Promise<{ id: string; token: string }> {
  const r = await setUpRequest(() =>
    app.request<{ pipe: { id: string }; access_token: string }>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: {
        bot_id: w.bot.id,
        title: 'test pipe',
        channel_id: w.channelId,
        rate_limit: { capacity: 10_000, per_second: 10_000 },
        ...body,
      },
    }),
  );
  if (r.status !== 200) throw new Error(`pipe create failed: ${r.text}`);
  return { id: r.body.data.pipe.id, token: r.body.data.access_token };
}

/**
 * Each message's delivery status, in the order given ('none' before its record exists), read in
 * one query: a poll over hundreds of messages as single reads misses DB_TIMEOUT_MS on a loaded
 * machine.
 */
export async function deliveryStatuses(app: TestApp, ids: readonly string[]): Promise<string[]> {
  const found = await app.res.store.deliveries.statusesOf(ids);
  return ids.map((id) => found.get(id) ?? 'none');
}

export async function sendPipe(app: TestApp, token: string, json: unknown, query = ''): Promise<string> {
  const r = await app.request<{ msg_id: string }>(
    'POST',
    `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}${query}`,
    { json },
  );
  if (r.status !== 200) throw new Error(`send failed: ${r.text}`);
  return r.body.data.msg_id;
}

export async function createTemplate(app: TestApp, w: World, content: string, msgtype = 1): Promise<string> {
  const r = await setUpRequest(() =>
    app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
      bot: w.bot.token,
      json: { title: 'tpl', content, msgtype },
    }),
  );
  if (r.status !== 200) throw new Error(`template create failed: ${r.text}`);
  return r.body.data.model.id;
}

/**
 * A stand-in render thread speaking the pool's protocol, for what no real template does: a
 * render the engine's own checks cannot stop (`spin <ms>` busy-waits; `sleep <ms>` takes as long
 * without using a core) and a thread that dies in
 * the middle of a render (`exit`), and a render that fails on a plain Error, as a bug would
 * (`bug <message>`). Anything else answers `done <input>` at once.
 */
export function standInThread(): URL {
  const file = join(mkdtempSync(join(tmpdir(), 'herald-render-')), 'stand-in-thread.mjs');
  writeFileSync(
    file,
    `import { parentPort, workerData } from 'node:worker_threads';
const running = new Int32Array(workerData.running);
parentPort.on('message', (req) => {
  Atomics.store(running, 0, req.id);
  const spin = /^spin (\\d+)$/.exec(req.source);
  if (spin) { const end = Date.now() + Number(spin[1]); while (Date.now() < end); }
  const pause = /^sleep (\\d+)$/.exec(req.source);
  if (pause) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(pause[1]));
  if (req.source === 'exit') process.exit(7);
  const bug = /^bug (.*)$/.exec(req.source);
  if (bug) {
    Atomics.store(running, 0, 0);
    parentPort.postMessage({ id: req.id, ok: false, error: { kind: 'error', message: bug[1] } });
    return;
  }
  Atomics.store(running, 0, 0);
  parentPort.postMessage({ id: req.id, ok: true, type: 9, content: 'done ' + req.input });
});
parentPort.postMessage('ready');
`,
  );
  return pathToFileURL(file);
}

/** A plain message of `w` through pipe `pipeId`, as the ingest queues it; `over` changes fields. */
export function directJobData(w: World, pipeId: string, over: Partial<PipeJob> = {}): PipeJob {
  return {
    msg_id: `direct-${Math.random().toString(36).slice(2)}`,
    pipe_id: pipeId,
    bot_id: w.bot.id,
    channel_id: w.channelId,
    guild_id: w.guildId,
    template_id: null,
    type: null,
    quote: null,
    nonce: '',
    temp_target_id: null,
    input: 'direct',
    accepted_at: Date.now(),
    ...over,
  };
}

/**
 * Queues a plain message of `w` through pipe `pipeId` straight into the pipe queue, as the
 * ingest would have queued it (for states the API refuses at the door); answers its msg_id.
 */
export async function enqueueDirect(
  app: TestApp,
  w: World,
  pipeId: string,
  over: Partial<PipeJob> = {},
  options: { delay?: number } = {},
): Promise<string> {
  const job = directJobData(w, pipeId, over);
  await app.res.pipeRuntime.queue.add(PIPE_JOB_NAME, job, { jobId: job.msg_id, ...options });
  return job.msg_id;
}

/**
 * A worker's own parts on `deps` (caches, sent log, budgets) with `threads` stand-in render
 * threads, for tests that run processPipeJob themselves; what it opens is pushed on `closers`.
 */
export async function workerContext(
  deps: Deps,
  closers: Array<() => Promise<unknown>>,
  threads: number,
  log: Logger,
): Promise<ProcessContext> {
  const caches = new WorkerCaches(deps);
  await caches.start(deps);
  closers.push(() => caches.close());
  const blocking = new Redis(deps.config.redisUrl, { maxRetriesPerRequest: null });
  closers.push(async () => blocking.disconnect());
  const renderer = new RenderPool(threads, log, 60_000, standInThread());
  closers.push(() => renderer.close());
  await renderer.ready();
  return {
    deps,
    caches,
    metrics: metricsFor(deps),
    sentLog: new SentLog(deps, deps.redis, blocking),
    renderer,
    budgets: new BucketLeases(deps.redis),
  };
}

/**
 * A pipe queue of one test's own (`label` in its name) on the app's Redis and prefix, with the
 * connection it uses; both are closed (and the queue's keys removed) by `closers`.
 */
export function ownTestQueue(app: TestApp, closers: Array<() => Promise<unknown>>, label: string) {
  const connection = new Redis(app.config.redisUrl, { maxRetriesPerRequest: null });
  closers.push(async () => connection.disconnect());
  const queue = new Queue<PipeJob>(`${PIPE_QUEUE}-${label}-${Date.now()}`, {
    connection,
    prefix: app.config.redisPrefix,
  });
  closers.push(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  return { queue, connection };
}

/** A KMarkdown text of `paragraphs` numbered paragraphs of about 1,000 characters each. */
export const longText = (paragraphs: number) =>
  Array.from({ length: paragraphs }, (_, i) => `## ${i}\n${`p${i} `.repeat(250).trim()}`).join('\n\n');
