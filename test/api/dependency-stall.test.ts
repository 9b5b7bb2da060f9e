import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { type ApiResponse, createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * The database or Redis stops answering while its connections stay open (a stopped process, a
 * black-holed network): a loopback proxy in front of each holds the bytes instead of forwarding
 * them. Every request that waits on the stalled service must answer 503 within DB_TIMEOUT_MS,
 * as it does when the connection is refused, and work again once the service answers.
 */

const DB_TIMEOUT_MS = 400;
/** DB_TIMEOUT_MS and a generous margin for a loaded machine. */
const BOUND_MS = DB_TIMEOUT_MS + 1_500;

let redisProxy: TcpProxy;
let mongoProxy: TcpProxy;
let app: TestApp;
let queue: Queue<PipeJob>;
let botId: string;
let botToken: string;
let channelId: string;

const en = { 'Accept-Language': 'en-US' };

const send = (token: string, content: string, headers: Record<string, string> = {}) =>
  app.request<{ msg_id: string; error_id?: string }>(
    'POST',
    `/api/v3/message/send-pipemsg?access_token=${token}`,
    { json: { content }, headers: { ...en, ...headers } },
  );

/**
 * `send` where nothing stalls and the answer must be 200: asked again after a 503 (which means
 * "not accepted", so nothing is stored twice), since on a loaded machine the store can take longer
 * than this file's short DB_TIMEOUT_MS.
 */
async function sendAccepted(token: string, content: string) {
  for (let tries = 1; ; tries++) {
    const r = await send(token, content);
    if (r.status !== 503 || tries >= 5) return r;
  }
}

/**
 * A pipe for a test, made before anything stalls. Asked again after a 503: on a loaded machine the
 * store can take longer than this file's short DB_TIMEOUT_MS, and the set-up is not under test.
 */
async function createPipe(): Promise<string> {
  for (let tries = 1; ; tries++) {
    const r = await app.request<{ access_token: string }>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: botId, title: 'stall', channel_id: channelId },
    });
    if (r.status === 200) return r.body.data.access_token;
    if (r.status !== 503 || tries >= 5) throw new Error(r.text);
  }
}

const inputs = async () => (await queue.getJobs(['waiting', 'delayed', 'active'])).map((j) => j.data.input);

/** The answer and how long it took; fails the test (without waiting on) an answer later than `ms`. */
async function timed(request: () => Promise<ApiResponse>, ms = BOUND_MS + 2_000) {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    const r = await Promise.race([request(), late]);
    return { status: r.status, code: r.body.code, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** The web process's connection that writes the pipe queue's jobs. */
async function producer(): Promise<Redis> {
  const conn = app.res.pipeRuntime.producer;
  // BullMQ wraps the connection in a proxy: the same socket.
  expect(((await app.res.pipeRuntime.queue.client) as unknown as Redis).stream).toBe(conn.stream);
  return conn;
}

beforeAll(async () => {
  const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const mongoUrl = new URL(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/herald');
  redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  mongoProxy = await startTcpProxy(mongoUrl.hostname, Number(mongoUrl.port || 27017));
  app = await startTestApp('dependency_stall', {
    REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
    MONGO_URL: `mongodb://127.0.0.1:${mongoProxy.port}/herald`,
    DB_TIMEOUT_MS: String(DB_TIMEOUT_MS),
  });
  // Reads the queue directly, not through the proxy.
  queue = new Queue<PipeJob>(PIPE_QUEUE, {
    connection: { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) },
    prefix: app.config.redisPrefix,
  });
  const bot = await createTestBot(app);
  botId = bot.id;
  botToken = bot.token;
  const guild = await createTestGuild(app);
  channelId = (await createTestChannel(app, guild.id)).id;
  await addTestMember(app, guild.id, bot.bot.user_id as string);
});
afterAll(async () => {
  redisProxy?.resume();
  mongoProxy?.resume();
  await queue?.close();
  await app?.close();
  await redisProxy?.close();
  await mongoProxy?.close();
});

/**
 * While `proxy` is stalled every request answers 503 (50300) within BOUND_MS; once it is resumed
 * (and `afterResume` ran), each answers 200 again.
 */
async function expectStalledThenRecovered(
  proxy: TcpProxy,
  requests: Record<string, () => Promise<ApiResponse>>,
  afterResume: () => void = () => {},
): Promise<void> {
  proxy.stall();
  try {
    for (const [name, request] of Object.entries(requests)) {
      const r = await timed(request);
      expect({ name, status: r.status, code: r.code }).toEqual({ name, status: 503, code: 50300 });
      expect(r.ms, name).toBeLessThan(BOUND_MS);
    }
  } finally {
    proxy.resume();
  }
  afterResume();
  for (const [name, request] of Object.entries(requests)) {
    await expect
      .poll(async () => ({ name, status: (await request()).status }), { timeout: 15_000 })
      .toEqual({ name, status: 200 });
  }
}

describe('database stalled', () => {
  it('answers 503 within DB_TIMEOUT_MS for an uncached pipe, an admin read, message/list and intimacy/update; then recovers', async () => {
    const cold = await createPipe(); // never used: not in the pipe cache
    const requests: Record<string, () => Promise<ApiResponse>> = {
      'send-pipemsg on an uncached pipe': () => send(cold, 'cold pipe'),
      'admin read': () => app.request('GET', `/admin/api/bot/view?id=${botId}`, { admin: true }),
      'message/list': () =>
        app.request('GET', `/api/v3/message/list?target_id=${channelId}`, { bot: botToken }),
      'intimacy/update': () =>
        app.request('POST', '/api/v3/intimacy/update', { bot: botToken, json: { user_id: 'u1', score: 7 } }),
    };
    for (const [name, request] of Object.entries(requests)) {
      if (name.startsWith('send')) continue; // a send would cache the pipe
      expect({ name, status: (await request()).status }).toEqual({ name, status: 200 });
    }
    await expectStalledThenRecovered(mongoProxy, requests);
  });
});

describe('Redis stalled', () => {
  it('answers 503 within DB_TIMEOUT_MS for send-pipemsg and a bot request, accepts nothing, then recovers', async () => {
    const token = await createPipe();
    expect((await sendAccepted(token, 'before the stall')).status).toBe(200);
    let content = 'during the stall';
    const requests: Record<string, () => Promise<ApiResponse>> = {
      'send-pipemsg': () => send(token, content),
      'intimacy/update': () =>
        app.request('POST', '/api/v3/intimacy/update', { bot: botToken, json: { user_id: 'u2', score: 8 } }),
    };
    await expectStalledThenRecovered(redisProxy, requests, () => {
      content = 'after the stall';
    });
    expect(await inputs()).not.toContain('during the stall');
  });

  it('withdraws a message whose job write timed out: its 503 means "not accepted"', async () => {
    const token = await createPipe();
    expect((await sendAccepted(token, 'before the write stall')).status).toBe(200);
    const conn = await producer();
    const port = conn.stream.localPort;
    // Only the job writes stall; the pipe's budget and the caches still answer.
    redisProxy.stall((client) => client.remotePort === port);
    try {
      const r = await timed(() => send(token, 'write timed out'));
      expect(r.status).toBe(503);
      expect(r.ms).toBeLessThan(BOUND_MS);
    } finally {
      redisProxy.resume();
    }
    // Redis runs one connection's commands in order: once this answers, the held job write has
    // been applied, and so has whatever the web process sent after it on that connection.
    await conn.ping();
    expect(await inputs()).not.toContain('write timed out');
    expect((await sendAccepted(token, 'write timed out')).status).toBe(200);
    expect((await inputs()).filter((i) => i === 'write timed out')).toHaveLength(1);
  });

  it('with an Idempotency-Key, the retries of a send whose job write timed out store one message', async () => {
    const token = await createPipe();
    expect((await sendAccepted(token, 'before the keyed stall')).status).toBe(200);
    const conn = await producer();
    const port = conn.stream.localPort;
    const key = { 'Idempotency-Key': 'stalled-write-1' };
    redisProxy.stall((client) => client.remotePort === port);
    try {
      const r = await timed(() => send(token, 'keyed write timed out', key));
      expect(r.status).toBe(503);
      expect(r.ms).toBeLessThan(BOUND_MS);
    } finally {
      redisProxy.resume();
    }
    await conn.ping();
    const retried = await send(token, 'keyed write timed out', key);
    expect(retried.status).toBe(200);
    const again = await send(token, 'keyed write timed out', key);
    expect(again.body.data.msg_id).toBe(retried.body.data.msg_id);
    expect((await inputs()).filter((i) => i === 'keyed write timed out')).toHaveLength(1);
  });
});
