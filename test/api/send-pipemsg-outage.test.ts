import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { createTestBot, setUpRequest, startTestApp, type TestApp } from '../helpers/test-app.js';

/** send-pipemsg while Redis or the database is cut off (a loopback proxy in front of each). */
let redisProxy: TcpProxy;
let mongoProxy: TcpProxy;
let app: TestApp;
let queue: Queue<PipeJob>;
let botId: string;
let botToken: string;
let guildId: string;
let channelId: string;

const en = { 'Accept-Language': 'en-US' };

const send = (token: string, content: string, query = '', headers: Record<string, string> = {}) =>
  app.request<{ msg_id: string; error_id?: string }>(
    'POST',
    `/api/v3/message/send-pipemsg?access_token=${token}${query}`,
    { json: { content }, headers: { ...en, ...headers } },
  );

/** A set-up call made before anything is cut (asked again after a 503): its data, or a throw. */
async function setUp<T>(
  call: () => Promise<{ status: number; text: string; body: { data: T } }>,
): Promise<T> {
  const r = await setUpRequest(call);
  if (r.status !== 200) throw new Error(r.text);
  return r.body.data;
}

async function createPipe(): Promise<string> {
  const data = await setUp(() =>
    app.request<{ access_token: string }>('POST', '/admin/api/pipe/create', {
      admin: true,
      json: { bot_id: botId, title: 'outage', channel_id: channelId },
    }),
  );
  return data.access_token;
}

const allJobs = async () => (await queue.getJobs(['waiting', 'delayed', 'active'])).map((j) => j.data.input);

beforeAll(async () => {
  const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const mongoUrl = new URL(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/herald');
  redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  mongoProxy = await startTcpProxy(mongoUrl.hostname, Number(mongoUrl.port || 27017));
  app = await startTestApp('pipes_outage', {
    REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
    MONGO_URL: `mongodb://127.0.0.1:${mongoProxy.port}/herald`,
    DB_TIMEOUT_MS: '300',
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
  guildId = guild.id;
  channelId = (await createTestChannel(app, guildId)).id;
  await addTestMember(app, guildId, bot.bot.user_id as string);
});
afterAll(async () => {
  redisProxy?.restore();
  mongoProxy?.restore();
  await queue?.close();
  await app?.close();
  await redisProxy?.close();
  await mongoProxy?.close();
});

// The database test runs first: cutting Redis drops the caches' change subscriptions, and until
// they are back (ioredis reconnects with a backoff) the caches are bypassed or cleared, so a
// database test right after it would read the database it had just cut off.
describe('database unreachable', () => {
  it('still accepts for a pipe (and target channel) the cache knows; 503 for one it does not', async () => {
    const known = await createPipe();
    const unknown = await createPipe();
    const other = await createTestChannel(app, guildId, { name: 'other' });
    // Served from the cache only while its change subscription is live (it was never cut here).
    expect(app.res.pipeRuntime.pipes.isLive).toBe(true);
    expect((await send(known, 'warm', `&target_id=${other.id}`)).status).toBe(200);
    mongoProxy.cut();
    try {
      const r = await send(known, 'while the database is down', `&target_id=${other.id}`);
      expect(r.status).toBe(200);
      const job = await queue.getJob(r.body.data.msg_id);
      expect(job?.data).toMatchObject({ input: 'while the database is down', channel_id: other.id });
      const cold = await send(unknown, 'not cached');
      expect(cold.status).toBe(503);
    } finally {
      mongoProxy.restore();
    }
    await expect.poll(async () => (await send(unknown, 'back')).status, { timeout: 15_000 }).toBe(200);
  });
});

describe('database unreachable, type sent to a template pipe', () => {
  async function templatePipe(): Promise<{ token: string; templateId: string }> {
    const t = await setUp(() =>
      app.request<{ model: { id: string } }>('POST', '/api/v3/template/create', {
        bot: botToken,
        json: { title: 'kmd', content: 'n={{ data.n }}' },
      }),
    );
    const r = await setUp(() =>
      app.request<{ access_token: string }>('POST', '/admin/api/pipe/create', {
        admin: true,
        json: { bot_id: botId, title: 'templated', channel_id: channelId, template_id: t.model.id },
      }),
    );
    return { token: r.access_token, templateId: t.model.id };
  }
  const sendTyped = (token: string, type: number) =>
    app.request('POST', `/api/v3/message/send-pipemsg?access_token=${token}&type=${type}`, {
      json: { n: 1 },
      headers: en,
    });

  it("checks it against the template's format from the cache; an uncached template is left to the worker", async () => {
    const warm = await templatePipe();
    const cold = await templatePipe();
    expect((await sendTyped(warm.token, 9)).status).toBe(200);
    expect((await sendTyped(warm.token, 10)).status).toBe(400);
    // The cold pipe is known (cached), its template never looked at.
    expect((await send(cold.token, 'no type')).status).toBe(200);
    mongoProxy.cut();
    try {
      expect((await sendTyped(warm.token, 9)).status).toBe(200);
      const mismatch = await sendTyped(warm.token, 10);
      expect([mismatch.status, mismatch.body.code]).toEqual([400, 40023]);
      // Not knowable now: accepted, and the worker fails it (TYPE_MISMATCH) if it disagrees.
      expect((await sendTyped(cold.token, 9)).status).toBe(200);
    } finally {
      mongoProxy.restore();
    }
  });
});

describe('Redis unreachable', () => {
  it('answers 503 at once, accepts nothing, and recovers', async () => {
    const token = await createPipe();
    expect((await send(token, 'before')).status).toBe(200);
    redisProxy.cut();
    const down = await send(token, 'during the outage');
    expect(down.status).toBe(503);
    expect(down.body.code).toBe(50300);
    expect(down.body.message).toBe(
      `Service temporarily unavailable, retry later (error id ${down.body.data.error_id})`,
    );
    const keyed = await send(token, 'keyed during the outage', '', { 'Idempotency-Key': 'outage-1' });
    expect(keyed.status).toBe(503);
    redisProxy.restore();
    await expect.poll(async () => (await send(token, 'after')).status, { timeout: 15_000 }).toBe(200);
    const inputs = await allJobs();
    expect(inputs).toContain('before');
    expect(inputs).not.toContain('during the outage');
    expect(inputs).not.toContain('keyed during the outage');
    // The failed keyed request left no claim behind: its retry is accepted now.
    const retried = await send(token, 'keyed during the outage', '', { 'Idempotency-Key': 'outage-1' });
    expect(retried.status).toBe(200);
    expect(await allJobs()).toContain('keyed during the outage');
  });
});
