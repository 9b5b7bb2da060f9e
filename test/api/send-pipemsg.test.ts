import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPE_QUEUE, type PipeJob } from '../../src/queue/pipe-messages.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

let app: TestApp;
let queue: Queue<PipeJob>;
let bot: { id: string; token: string; bot: Record<string, unknown> };
let guildId: string;
let channelId: string;

interface Created {
  pipe: Record<string, unknown> & { id: string };
  access_token: string;
  url: string;
}

async function createPipe(body: Record<string, unknown> = {}): Promise<Created> {
  const r = await app.request<Created>('POST', '/admin/api/pipe/create', {
    admin: true,
    json: { bot_id: bot.id, title: 'CI', channel_id: channelId, ...body },
  });
  if (r.status !== 200) throw new Error(`pipe create failed: ${r.text}`);
  return r.body.data;
}

const send = (token: string, json: unknown, query = '', headers: Record<string, string> = {}) =>
  app.request<{ msg_id: string; msg_timestamp: number; nonce: string; not_permissions_mention: string[] }>(
    'POST',
    `/api/v3/message/send-pipemsg?access_token=${encodeURIComponent(token)}${query}`,
    { json, headers },
  );

beforeAll(async () => {
  app = await startTestApp('send_pipemsg');
  queue = new Queue<PipeJob>(PIPE_QUEUE, {
    connection: {
      host: new URL(app.config.redisUrl).hostname,
      port: Number(new URL(app.config.redisUrl).port || 6379),
    },
    prefix: app.config.redisPrefix,
  });
  bot = await createTestBot(app);
  const guild = await createTestGuild(app);
  guildId = guild.id;
  channelId = (await createTestChannel(app, guildId)).id;
  await addTestMember(app, guildId, bot.bot.user_id as string);
});
afterAll(async () => {
  await queue?.close();
  await app?.close();
});

describe('send-pipemsg basic path', () => {
  it('accepts {"content"} into a plain pipe and stores the job under msg_id', async () => {
    const { pipe, access_token } = await createPipe();
    expect(access_token).toMatch(/^hrp_\d+\.[A-Za-z0-9_-]{43}$/);
    const r = await send(access_token, { content: 'build **passed**' }, '&nonce=n1');
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    const { msg_id, msg_timestamp, nonce, not_permissions_mention } = r.body.data;
    expect(msg_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(typeof msg_timestamp).toBe('number');
    expect(nonce).toBe('n1');
    expect(not_permissions_mention).toEqual([]);
    const job = await queue.getJob(msg_id);
    expect(job?.data).toEqual({
      msg_id,
      pipe_id: pipe.id,
      bot_id: bot.id,
      channel_id: channelId,
      guild_id: guildId,
      template_id: null,
      type: null,
      quote: null,
      nonce: 'n1',
      temp_target_id: null,
      input: 'build **passed**',
      accepted_at: msg_timestamp,
    });
  });
});
