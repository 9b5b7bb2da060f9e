import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../../src/store/index.js';
import { type RunningWorkers, startWorkers } from '../../src/workers/index.js';
import { addTestMember, createTestChannel, createTestGuild } from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPipe, enqueueDirect } from '../workers/helpers.js';

/**
 * GET /admin/api/channel/explain-send: "can this bot send here?", and for each case the worker's
 * own decision on a message sent there (in this process, on the real Redis and store), which
 * `allowed` must match.
 */

const ADMIN = 1;
const VIEW = 2048;
const SEND = 4096;
const MENTION = 131072;

interface Explanation {
  allowed: boolean;
  missing: string | null;
  permissions: number;
  bot_id: string;
  channel_id: string;
  guild_id: string;
  decided_by: { kind: string; id?: string | number; name?: string };
  steps: Array<{
    kind: string;
    id?: string | number;
    name?: string;
    op: string;
    effect: string;
    permissions: number;
    after: number;
  }>;
}

let app: TestApp;
let workers: RunningWorkers;

const explain = (channelId: string, botId: string, headers: Record<string, string> = {}) =>
  app.request<Explanation>('GET', `/admin/api/channel/explain-send?channel_id=${channelId}&bot_id=${botId}`, {
    admin: true,
    headers,
  });
const post = async (path: string, json: Record<string, unknown>) => {
  const r = await app.request('POST', path, { admin: true, json });
  if (r.status !== 200) throw new Error(`${path}: ${r.text}`);
  return r;
};
async function settled(msgId: string): Promise<DeliveryRecord> {
  const record = () => app.res.store.deliveries.get(msgId);
  await expect
    .poll(async () => (await record())?.status, { timeout: 15_000, interval: 50 })
    .toMatch(/^(sent|failed)$/);
  return (await record()) as DeliveryRecord;
}

beforeAll(async () => {
  app = await startTestApp('admin_explain_send', { METRICS_PORT: '0', HOST: '127.0.0.1' });
  workers = await startWorkers(app.res, app.res.pipeRuntime.queue);
});
afterAll(async () => {
  await workers?.close(2_000);
  await app?.close();
});

interface Case {
  name: string;
  owner?: boolean;
  everyone: number;
  roles?: Array<{ name: string; permissions: number }>;
  /** Role ids the bot holds; null: not a member (it joins to make the pipe, then leaves). */
  memberRoles: number[] | null;
  overwrites?: Array<{ role_id: number; allow?: number; deny?: number }>;
  /** The bot user's own channel overwrite. */
  userOverwrite?: { allow?: number; deny?: number };
  disabled?: boolean;
  expected: {
    allowed: boolean;
    missing: string | null;
    decided_by: Record<string, unknown>;
    steps?: Array<[string, string | number, string, string]>;
  };
}

const cases: Case[] = [
  {
    name: 'the guild owner, despite an everyone deny',
    owner: true,
    everyone: 0,
    memberRoles: [],
    overwrites: [{ role_id: 0, deny: VIEW | SEND }],
    expected: {
      allowed: true,
      missing: null,
      decided_by: { kind: 'guild_owner', name: 'case bot' },
      steps: [['guild_owner', 'BOT_USER', 'all', 'allow']],
    },
  },
  {
    name: 'an administrator role, despite an everyone deny',
    everyone: 0,
    roles: [{ name: 'admins', permissions: ADMIN }],
    memberRoles: [1],
    overwrites: [{ role_id: 0, deny: VIEW | SEND }],
    expected: {
      allowed: true,
      missing: null,
      decided_by: { kind: 'administrator', id: 1, name: 'admins' },
      steps: [
        ['everyone', 0, 'union', 'none'],
        ['role', 1, 'union', 'allow'],
        ['administrator', 1, 'all', 'allow'],
      ],
    },
  },
  {
    name: 'a role granting send where everyone only views',
    everyone: VIEW,
    roles: [{ name: 'senders', permissions: SEND }],
    memberRoles: [1],
    expected: {
      allowed: true,
      missing: null,
      decided_by: { kind: 'role', id: 1, name: 'senders' },
      steps: [
        ['everyone', 0, 'union', 'allow'],
        ['role', 1, 'union', 'allow'],
      ],
    },
  },
  {
    name: 'a channel role overwrite denying send',
    everyone: VIEW,
    roles: [{ name: 'senders', permissions: SEND }],
    memberRoles: [1],
    overwrites: [{ role_id: 1, deny: SEND }],
    expected: {
      allowed: false,
      missing: 'send_messages',
      decided_by: { kind: 'role_overwrite', id: 1, name: 'senders' },
    },
  },
  {
    name: 'a user overwrite allowing send back',
    everyone: VIEW | SEND,
    memberRoles: [],
    overwrites: [{ role_id: 0, deny: SEND }],
    userOverwrite: { allow: SEND },
    expected: {
      allowed: true,
      missing: null,
      decided_by: { kind: 'user_overwrite', name: 'case bot' },
      steps: [
        ['everyone', 0, 'union', 'allow'],
        ['role_overwrite', 0, 'deny', 'deny'],
        ['user_overwrite', 'BOT_USER', 'allow', 'allow'],
      ],
    },
  },
  {
    name: 'a role overwrite hiding the channel',
    everyone: VIEW | SEND,
    memberRoles: [],
    overwrites: [{ role_id: 0, deny: VIEW }],
    expected: {
      allowed: false,
      missing: 'view_channels',
      decided_by: { kind: 'role_overwrite', id: 0, name: '@全体成员' },
    },
  },
  {
    name: 'not a member',
    everyone: VIEW | SEND,
    memberRoles: null,
    expected: {
      allowed: false,
      missing: 'view_channels',
      decided_by: { kind: 'not_member', name: 'case bot' },
      steps: [['not_member', 'BOT_USER', 'none', 'deny']],
    },
  },
  {
    name: '@everyone only',
    everyone: VIEW | SEND,
    roles: [{ name: 'mentioners', permissions: MENTION }],
    memberRoles: [1],
    expected: {
      allowed: true,
      missing: null,
      decided_by: { kind: 'everyone', id: 0, name: '@全体成员' },
      steps: [
        ['everyone', 0, 'union', 'allow'],
        ['role', 1, 'union', 'none'],
      ],
    },
  },
  {
    name: 'nothing grants send: the everyone role decides',
    everyone: VIEW,
    memberRoles: [],
    expected: {
      allowed: false,
      missing: 'send_messages',
      decided_by: { kind: 'everyone', id: 0, name: '@全体成员' },
    },
  },
  {
    name: 'a disabled bot, whose permissions would do',
    everyone: VIEW | SEND,
    memberRoles: [],
    disabled: true,
    expected: { allowed: false, missing: null, decided_by: { kind: 'bot_disabled', name: 'case bot' } },
  },
];

describe('explain-send and the worker decide alike', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const bot = await createTestBot(app, { name: 'case bot' });
    const botUser = bot.bot.user_id as string;
    const guild = await createTestGuild(app, {
      everyone_permissions: c.everyone,
      roles: c.roles ?? [],
      ...(c.owner ? { user_id: botUser } : {}),
    });
    const channel = await createTestChannel(app, guild.id, {
      permission_overwrites: c.overwrites ?? [],
      permission_users: c.userOverwrite ? [{ user_id: botUser, ...c.userOverwrite }] : [],
    });
    if (!c.owner) await addTestMember(app, guild.id, botUser, c.memberRoles ?? []);
    const world = { bot, guildId: guild.id, channelId: channel.id };
    const pipe = await createPipe(app, world);
    if (c.memberRoles === null)
      await post('/admin/api/guild-member/remove', { guild_id: guild.id, user_id: botUser });
    if (c.disabled) await post('/admin/api/bot/update', { id: bot.id, enabled: false });

    const r = await explain(channel.id, bot.id);
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    const e = r.body.data;
    const botIds = (v: unknown) => (v === 'BOT_USER' ? botUser : v);
    expect(e).toMatchObject({
      allowed: c.expected.allowed,
      missing: c.expected.missing,
      bot_id: bot.id,
      channel_id: channel.id,
      guild_id: guild.id,
    });
    expect(e.decided_by).toMatchObject(c.expected.decided_by);
    if (c.expected.steps) {
      expect(e.steps.map((s) => [s.kind, s.id, s.op, s.effect])).toEqual(
        c.expected.steps.map(([kind, id, op, effect]) => [kind, botIds(id), op, effect]),
      );
    }
    if (c.disabled) {
      expect(e.decided_by).toEqual({ kind: 'bot_disabled', id: bot.id, name: 'case bot' });
      expect(e.steps[0]).toMatchObject({ kind: 'bot_disabled', id: bot.id, effect: 'deny' });
    }
    // Every step's effect is one of the three; the last step ends on the effective mask.
    expect(e.steps.every((s) => ['allow', 'deny', 'none'].includes(s.effect))).toBe(true);
    expect(e.steps.at(-1)?.after).toBe(e.permissions);

    // The worker's decision on a message sent there. A disabled bot's pipe is refused at the
    // door, so that message goes straight onto the queue as the door would have put it.
    const msgId = c.disabled
      ? await enqueueDirect(app, world, pipe.id)
      : (
          await app.request<{ msg_id: string }>('POST', '/admin/api/pipe/send-test', {
            admin: true,
            json: { id: pipe.id },
          })
        ).body.data.msg_id;
    const rec = await settled(msgId);
    expect(rec.status === 'sent').toBe(e.allowed);
    const reason = c.disabled
      ? 'BOT_UNAVAILABLE'
      : e.missing === 'view_channels'
        ? 'NO_VIEW_PERMISSION'
        : e.missing === 'send_messages'
          ? 'NO_SEND_PERMISSION'
          : null;
    expect(rec.reason).toBe(reason);
  });
});

describe('explain-send answers', () => {
  it('names the steps after the bot and answers in the envelope, in either language', async () => {
    const bot = await createTestBot(app, { name: 'named bot' });
    const guild = await createTestGuild(app);
    const channel = await createTestChannel(app, guild.id, {
      permission_users: [{ user_id: bot.bot.user_id as string, deny: SEND }],
    });
    await addTestMember(app, guild.id, bot.bot.user_id as string);
    const r = await explain(channel.id, bot.id, { 'Accept-Language': 'en-US' });
    expect(r.body).toMatchObject({ code: 0, message: 'Success' });
    expect(r.body.data).toMatchObject({
      allowed: false,
      missing: 'send_messages',
      permissions: VIEW,
      decided_by: { kind: 'user_overwrite', id: bot.bot.user_id, name: 'named bot' },
    });
    expect(r.body.data.steps).toEqual([
      {
        kind: 'everyone',
        id: 0,
        name: '@全体成员',
        op: 'union',
        effect: 'allow',
        permissions: VIEW | SEND,
        after: VIEW | SEND,
      },
      {
        kind: 'user_overwrite',
        id: bot.bot.user_id,
        name: 'named bot',
        op: 'deny',
        effect: 'deny',
        permissions: SEND,
        after: VIEW,
      },
    ]);
  });

  it('404 (40401) for an unknown bot or channel; 400 (40000) for a voice channel or a category', async () => {
    const bot = await createTestBot(app);
    const guild = await createTestGuild(app);
    const text = await createTestChannel(app, guild.id);
    const noBot = await explain(text.id, '999999');
    expect([noBot.status, noBot.body.code]).toEqual([404, 40401]);
    const noChannel = await explain('999999', bot.id);
    expect([noChannel.status, noChannel.body.code]).toEqual([404, 40401]);
    for (const body of [{ type: 2 }, { is_category: true }]) {
      const c = await createTestChannel(app, guild.id, body);
      const r = await explain(c.id, bot.id);
      expect([r.status, r.body.code]).toEqual([400, 40000]);
      expect(r.body.message).toContain('channel_id');
    }
  });

  it.each([
    ['bot_id=1', 'channel_id'],
    ['channel_id=1', 'bot_id'],
  ])('400 (40000) for %s, naming %s', async (query, field) => {
    const r = await app.request('GET', `/admin/api/channel/explain-send?${query}`, { admin: true });
    expect([r.status, r.body.code]).toEqual([400, 40000]);
    expect(r.body.message).toContain(field);
  });

  it('needs the admin token', async () => {
    const r = await app.request('GET', '/admin/api/channel/explain-send?channel_id=1&bot_id=1');
    expect([r.status, r.body.code]).toEqual([401, 40100]);
  });
});
