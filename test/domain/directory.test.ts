import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  botPermissionsInChannel,
  type DirectoryChange,
  getChannel,
  getGuild,
  getMember,
  getUser,
  listBotGuilds,
  parseDirectoryChange,
  publishDirectoryChange,
  subscribeDirectoryChanges,
  toPlatformChannel,
  toPlatformGuild,
  toPlatformUser,
} from '../../src/domain/directory/index.js';
import { hasPermission, PERMISSION } from '../../src/domain/permissions.js';
import type { BotRecord } from '../../src/store/index.js';
import {
  addTestMember,
  createTestChannel,
  createTestGuild,
  setTestMemberRoles,
  upsertTestUser,
} from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

let app: TestApp;
let bot: BotRecord;
beforeAll(async () => {
  app = await startTestApp('directory_domain');
  const created = await createTestBot(app, { name: 'dir bot' });
  bot = (await app.res.store.bots.get(created.id))!;
});
afterAll(() => app?.close());

const { VIEW_CHANNELS: VIEW, SEND_MESSAGES: SEND } = PERMISSION;

describe('getters', () => {
  it('return records, or null for unknown ids', async () => {
    const g = await createTestGuild(app);
    const c = await createTestChannel(app, g.id);
    expect(await getGuild(app.res, g.id)).toMatchObject({ id: g.id, roles: [{ role_id: 0 }] });
    expect(await getChannel(app.res, c.id)).toMatchObject({ id: c.id, guild_id: g.id });
    expect(await getMember(app.res, g.id, g.user_id)).toMatchObject({ guild_id: g.id, roles: [] });
    expect(await getUser(app.res, g.user_id)).toMatchObject({ id: g.user_id, bot: false });
    const rec = await getGuild(app.res, g.id);
    expect(rec?.updated_at).toBeGreaterThan(0);
    expect(await getGuild(app.res, 'nope')).toBeNull();
    expect(await getChannel(app.res, 'nope')).toBeNull();
    expect(await getMember(app.res, g.id, 'nope')).toBeNull();
    expect(await getUser(app.res, 'nope')).toBeNull();
  });
});

describe('botPermissionsInChannel', () => {
  it('is null for an unknown channel and 0 before the bot joins', async () => {
    expect(await botPermissionsInChannel(app.res, bot, '404')).toBeNull();
    const g = await createTestGuild(app);
    const c = await createTestChannel(app, g.id);
    const access = await botPermissionsInChannel(app.res, bot, c.id);
    expect(access).toMatchObject({ member: null, permissions: 0 });
    expect(access?.guild.id).toBe(g.id);
    expect(access?.channel.id).toBe(c.id);
  });

  it('follows membership, roles and overwrites as they change', async () => {
    const g = await createTestGuild(app, {
      roles: [{ name: 'bots', permissions: SEND }],
      everyone_permissions: VIEW,
    });
    const c = await createTestChannel(app, g.id);
    await addTestMember(app, g.id, bot.user_id);
    let access = await botPermissionsInChannel(app.res, bot, c.id);
    expect(access?.permissions).toBe(VIEW);
    expect(hasPermission(access!.permissions, SEND)).toBe(false);
    await setTestMemberRoles(app, g.id, bot.user_id, [1]);
    access = await botPermissionsInChannel(app.res, bot, c.id);
    expect(access?.member?.roles).toEqual([1]);
    expect(hasPermission(access!.permissions, SEND)).toBe(true);
    const r = await app.request('POST', '/admin/api/channel/update', {
      admin: true,
      json: { id: c.id, permission_users: [{ user_id: bot.user_id, deny: SEND }] },
    });
    expect(r.status).toBe(200);
    access = await botPermissionsInChannel(app.res, bot, c.id);
    expect(access?.permissions).toBe(VIEW);
  });
});

describe('listBotGuilds', () => {
  it("lists only the guilds the bot's user has joined", async () => {
    const lonely = await app.res.store.bots.get((await createTestBot(app, { name: 'lonely' })).id);
    expect(await listBotGuilds(app.res, lonely!)).toEqual([]);
    const a = await createTestGuild(app, { name: 'a' });
    const b = await createTestGuild(app, { name: 'b' });
    await createTestGuild(app, { name: 'not joined' });
    await addTestMember(app, b.id, lonely!.user_id);
    await addTestMember(app, a.id, lonely!.user_id);
    const guilds = await listBotGuilds(app.res, lonely!);
    expect(guilds.map((g) => g.id)).toEqual([a.id, b.id].sort());
    await app.request('POST', '/admin/api/guild-member/remove', {
      admin: true,
      json: { guild_id: a.id, user_id: lonely!.user_id },
    });
    expect((await listBotGuilds(app.res, lonely!)).map((g) => g.id)).toEqual([b.id]);
  });
});

describe('platform objects', () => {
  it('have exactly the platform-facts fields', async () => {
    const g = await createTestGuild(app, { roles: [{ name: 'r' }] });
    const u = await upsertTestUser(app, { username: 'carol', nickname: 'C' });
    const c = await createTestChannel(app, g.id, { permission_users: [{ user_id: u.id, allow: SEND }] });
    const guild = (await getGuild(app.res, g.id))!;
    const channel = (await getChannel(app.res, c.id))!;
    const user = (await getUser(app.res, u.id))!;
    const member = await addTestMember(app, g.id, u.id, [1]);
    const pu = toPlatformUser(user, (await getMember(app.res, g.id, u.id))!);
    expect(Object.keys(pu).sort()).toEqual(
      [
        'id',
        'username',
        'nickname',
        'identify_num',
        'online',
        'bot',
        'status',
        'avatar',
        'vip_avatar',
        'mobile_verified',
        'roles',
      ].sort(),
    );
    expect(pu.roles).toEqual(member.roles);
    const pc = toPlatformChannel(channel, [user]);
    expect(Object.keys(pc).sort()).toEqual(
      [
        'id',
        'name',
        'user_id',
        'guild_id',
        'topic',
        'is_category',
        'parent_id',
        'level',
        'slow_mode',
        'type',
        'permission_overwrites',
        'permission_users',
        'permission_sync',
      ].sort(),
    );
    expect(pc.permission_users).toEqual([{ user: toPlatformUser(user), allow: SEND, deny: 0 }]);
    // Without the users, a user object still carries the id.
    expect(toPlatformChannel(channel).permission_users[0]?.user.id).toBe(u.id);
    const pg = toPlatformGuild(guild, [channel], [user]);
    expect(Object.keys(pg).sort()).toEqual(
      [
        'id',
        'name',
        'topic',
        'user_id',
        'icon',
        'notify_type',
        'region',
        'enable_open',
        'open_id',
        'default_channel_id',
        'welcome_channel_id',
        'roles',
        'channels',
      ].sort(),
    );
    expect(pg.channels).toEqual([pc]);
    expect(Object.keys(pg.roles[0]!).sort()).toEqual(
      ['role_id', 'name', 'color', 'position', 'hoist', 'mentionable', 'permissions'].sort(),
    );
  });
});

describe('change feed', () => {
  it('publishes a change for every admin write, to subscribers in other connections', async () => {
    const seen: DirectoryChange[] = [];
    const sub = await subscribeDirectoryChanges(app.config, (c) => seen.push(c));
    try {
      const u = await upsertTestUser(app);
      const g = await createTestGuild(app, { user_id: u.id });
      const c = await createTestChannel(app, g.id);
      const other = await upsertTestUser(app);
      await addTestMember(app, g.id, other.id);
      await app.request('POST', '/admin/api/guild/update', { admin: true, json: { id: g.id, name: 'x' } });
      await publishDirectoryChange(app.res, { kind: 'user', id: 'direct' });
      const want: DirectoryChange[] = [
        { kind: 'user', id: u.id },
        { kind: 'member', id: u.id, guild_id: g.id },
        { kind: 'guild', id: g.id },
        { kind: 'channel', id: c.id, guild_id: g.id },
        { kind: 'user', id: other.id },
        { kind: 'member', id: other.id, guild_id: g.id },
        { kind: 'guild', id: g.id },
        { kind: 'user', id: 'direct' },
      ];
      await expect.poll(() => seen.length, { timeout: 3000 }).toBeGreaterThanOrEqual(want.length);
      // Each names the process that published it (LocalChanges.origin).
      expect(seen).toEqual(want.map((w) => ({ ...w, origin: app.res.changes.origin })));
    } finally {
      await sub.close();
    }
  });

  it('publishes a change again until Redis takes it, when the first publish failed', async () => {
    // A Redis user that may do anything but PUBLISH (a real refusal, NOPERM), for this process's
    // writes; the subscriber, in another connection, is the default user.
    const user = `herald-nopub-${app.config.redisPrefix}`;
    await app.res.redis.acl('SETUSER', user, 'on', '>nopub-secret', '~*', '&*', '+@all', '-publish');
    const url = new URL(app.config.redisUrl);
    url.username = user;
    url.password = 'nopub-secret';
    const refused = new Redis(url.toString(), { maxRetriesPerRequest: 1 });
    const seen: DirectoryChange[] = [];
    const sub = await subscribeDirectoryChanges(app.config, (c) => seen.push(c));
    try {
      await publishDirectoryChange({ ...app.res, redis: refused }, { kind: 'template', id: 'tpl-retry' });
      await expect
        .poll(() => app.logText(), { timeout: 10_000 })
        .toContain('directory change not published yet; retrying');
      expect(seen).toEqual([]);
      await app.res.redis.acl('SETUSER', user, '+publish');
      await expect.poll(() => seen.map((c) => c.id), { timeout: 3000 }).toEqual(['tpl-retry']);
    } finally {
      await sub.close();
      refused.disconnect();
      await app.res.redis.acl('DELUSER', user);
    }
  });

  it('says when its connection is lost, so that caches stop serving, and when it is back', async () => {
    const events: string[] = [];
    const sub = await subscribeDirectoryChanges(app.config, () => {}, {
      onDisconnect: () => events.push('disconnect'),
      onResync: () => events.push('resync'),
    });
    try {
      // This file's feeds only (this one and the app's): other files' share this Redis.
      const name = `${app.config.redisPrefix}:directory-feed`;
      const list = (await app.res.redis.client('LIST')) as string;
      const ids = list
        .split('\n')
        .filter((line) => line.includes(` name=${name} `))
        .map((line) => /id=(\d+)/.exec(line)?.[1]);
      expect(ids.length).toBeGreaterThanOrEqual(2);
      for (const id of ids) await app.res.redis.client('KILL', 'ID', id as string);
      await expect.poll(() => events, { timeout: 5000 }).toEqual(['disconnect', 'resync']);
    } finally {
      await sub.close();
    }
  });

  it('ignores malformed messages', () => {
    expect(parseDirectoryChange('not json')).toBeNull();
    expect(parseDirectoryChange('{"kind":"pipe","id":"1"}')).toBeNull();
    expect(parseDirectoryChange('{"kind":"guild","id":1}')).toBeNull();
    expect(parseDirectoryChange('{"kind":"channel","id":"1","guild_id":"2"}')).toEqual({
      kind: 'channel',
      id: '1',
      guild_id: '2',
    });
  });
});
