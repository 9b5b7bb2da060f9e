import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addTestMember,
  createTestChannel,
  createTestGuild,
  type TestGuild,
  testUserId,
  upsertTestUser,
} from '../helpers/directory.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('admin_directory');
});
afterAll(() => app?.close());

type Obj = Record<string, unknown>;
const post = (path: string, json: unknown, headers?: Record<string, string>) =>
  app.request<Obj>('POST', path, { admin: true, json, ...(headers ? { headers } : {}) });
const get = (path: string) => app.request<Obj>('GET', path, { admin: true });

const VIEW = 2048;
const SEND = 4096;
const MENTION = 131072;

const USER_KEYS = [
  'avatar',
  'bot',
  'id',
  'identify_num',
  'mobile_verified',
  'nickname',
  'online',
  'roles',
  'status',
  'username',
  'vip_avatar',
];

describe('users', () => {
  it('upserts with the id as given, keeps omitted fields, and views the platform user', async () => {
    const id = testUserId();
    const r = await post('/admin/api/user/upsert', {
      id,
      username: 'alice',
      nickname: 'Al',
      identify_num: '0420',
      avatar: 'https://img.example/a.png',
      online: true,
      status: 1,
      mobile_verified: true,
    });
    expect(r.status).toBe(200);
    expect(r.body.data.user).toMatchObject({
      id,
      username: 'alice',
      nickname: 'Al',
      identify_num: '0420',
      online: true,
      bot: false,
      status: 1,
      vip_avatar: '',
      roles: [],
    });
    const again = await post('/admin/api/user/upsert', { id, username: 'alice2', status: 10 });
    expect(again.body.data.user).toMatchObject({
      username: 'alice2',
      nickname: 'Al',
      status: 10,
      online: true,
    });
    const view = await get(`/admin/api/user/view?id=${id}`);
    const user = view.body.data.user as Obj;
    expect(Object.keys(user).sort()).toEqual([...USER_KEYS, 'updated_at'].sort());
    expect(user.username).toBe('alice2');
  });

  it("a bot's user can be changed but stays a bot", async () => {
    const { bot } = await createTestBot(app, { name: 'botty' });
    const r = await post('/admin/api/user/upsert', {
      id: bot.user_id,
      username: 'botty',
      avatar: 'https://x/b.png',
    });
    expect(r.body.data.user).toMatchObject({ id: bot.user_id, bot: true, avatar: 'https://x/b.png' });
  });

  it('answers 404 for an unknown user and validates fields', async () => {
    const r = await get('/admin/api/user/view?id=999');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(40401);
    const bad = await post('/admin/api/user/upsert', { id: '1', username: 'x', status: 3 });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('status');
    const noName = await post('/admin/api/user/upsert', { id: '1' });
    expect(noName.body.message).toBe('参数错误：username：为必填项');
  });
});

describe('guilds', () => {
  it('creates a guild with the everyone role (default mask), numbered roles, and the owner as member', async () => {
    const owner = await upsertTestUser(app, { username: 'owner' });
    const r = await post('/admin/api/guild/create', {
      name: 'Herald HQ',
      user_id: owner.id,
      topic: 'hello',
      notify_type: 2,
      region: 'beijing',
      roles: [
        { name: 'mods', permissions: MENTION, color: 0xff0000, hoist: true },
        { name: 'bots', permissions: SEND },
      ],
    });
    expect(r.status).toBe(200);
    const guild = r.body.data.guild as TestGuild;
    expect(Object.keys(guild).sort()).toEqual(
      [
        'channels',
        'created_at',
        'default_channel_id',
        'enable_open',
        'icon',
        'id',
        'name',
        'notify_type',
        'open_id',
        'region',
        'roles',
        'topic',
        'updated_at',
        'user_id',
        'welcome_channel_id',
      ].sort(),
    );
    expect(guild).toMatchObject({ name: 'Herald HQ', user_id: owner.id, notify_type: 2, channels: [] });
    expect(guild.id).toMatch(/^\d+$/);
    expect(guild.roles).toEqual([
      {
        role_id: 0,
        name: '@全体成员',
        color: 0,
        position: 0,
        hoist: 0,
        mentionable: 0,
        permissions: VIEW | SEND,
      },
      {
        role_id: 1,
        name: 'mods',
        color: 0xff0000,
        position: 0,
        hoist: 1,
        mentionable: 0,
        permissions: MENTION,
      },
      { role_id: 2, name: 'bots', color: 0, position: 0, hoist: 0, mentionable: 0, permissions: SEND },
    ]);
    const members = await get(`/admin/api/guild-member/list?guild_id=${guild.id}`);
    expect((members.body.data.items as Obj[]).map((m) => m.user_id)).toEqual([owner.id]);
  });

  it('takes the everyone mask at create, and role 0 given in roles', async () => {
    const g1 = await createTestGuild(app, { everyone_permissions: VIEW });
    expect(g1.roles).toEqual([expect.objectContaining({ role_id: 0, permissions: VIEW })]);
    const g2 = await createTestGuild(app, {
      roles: [
        { role_id: 5, name: 'x' },
        { role_id: 0, permissions: 0 },
      ],
    });
    expect(g2.roles.map((r) => [r.role_id, r.permissions])).toEqual([
      [0, 0],
      [5, 0],
    ]);
  });

  it('updates fields and replaces roles, keeping role 0 and numbering new roles after the highest id', async () => {
    const g = await createTestGuild(app, { roles: [{ name: 'a' }, { name: 'b' }] });
    const r = await post('/admin/api/guild/update', {
      id: g.id,
      name: 'renamed',
      enable_open: true,
      open_id: 123,
      roles: [{ role_id: 2, permissions: SEND }, { name: 'c' }],
    });
    expect(r.status).toBe(200);
    const guild = r.body.data.guild as TestGuild;
    expect(guild).toMatchObject({ name: 'renamed', enable_open: true, open_id: '123' });
    expect(guild.roles.map((x) => [x.role_id, x.name, x.permissions])).toEqual([
      [0, '@全体成员', VIEW | SEND],
      [2, 'b', SEND],
      [3, 'c', 0],
    ]);
  });

  it('refuses duplicate role ids, an unknown owner, and a default channel of another guild', async () => {
    const g = await createTestGuild(app);
    const dup = await post('/admin/api/guild/update', { id: g.id, roles: [{ role_id: 1 }, { role_id: 1 }] });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toContain('roles[1].role_id');
    const owner = await post('/admin/api/guild/create', { name: 'x', user_id: 'nobody' });
    expect(owner.status).toBe(400);
    expect(owner.body.message).toContain('user_id');
    const early = await post('/admin/api/guild/create', {
      name: 'x',
      user_id: g.user_id,
      default_channel_id: '1',
    });
    expect(early.status).toBe(400);
    expect(early.body.message).toContain('default_channel_id');
    const other = await createTestGuild(app);
    const c = await createTestChannel(app, other.id);
    const def = await post('/admin/api/guild/update', { id: g.id, default_channel_id: c.id });
    expect(def.status).toBe(400);
    expect(def.body.message).toContain('default_channel_id');
    const mine = await createTestChannel(app, g.id);
    const ok = await post('/admin/api/guild/update', { id: g.id, default_channel_id: mine.id });
    expect(ok.body.data.guild).toMatchObject({ default_channel_id: mine.id });
    const mask = await post('/admin/api/guild/update', { id: g.id, roles: [{ permissions: 2 ** 53 }] });
    expect(mask.status).toBe(400);
    const missing = await post('/admin/api/guild/update', { id: '404', name: 'x' });
    expect(missing.status).toBe(404);
  });

  it('views a guild with its channels, and lists guilds without them', async () => {
    const g = await createTestGuild(app, { name: 'zzz-view' });
    const c1 = await createTestChannel(app, g.id, { name: 'general', level: 1 });
    const c2 = await createTestChannel(app, g.id, { name: 'voice', type: 2, level: 2 });
    const view = await get(`/admin/api/guild/view?id=${g.id}`);
    const guild = view.body.data.guild as TestGuild;
    expect(guild.channels.map((c) => c.id)).toEqual([c1.id, c2.id]);
    const list = await get('/admin/api/guild/list?sort=-name&page_size=1');
    const items = list.body.data.items as Obj[];
    expect(items[0]).toMatchObject({ id: g.id, name: 'zzz-view' });
    expect(items[0]).not.toHaveProperty('channels');
    expect(list.body.data.sort).toEqual({ name: -1 });
    expect((list.body.data.meta as Obj).page_size).toBe(1);
  });
});

describe('channels', () => {
  it('creates a channel with overwrites; views render permission_users as user objects', async () => {
    const g = await createTestGuild(app, { roles: [{ name: 'r1' }] });
    const u = await upsertTestUser(app, { username: 'bob' });
    const category = await createTestChannel(app, g.id, { name: 'cat', is_category: true });
    const r = await post('/admin/api/channel/create', {
      guild_id: g.id,
      name: 'general',
      topic: 't',
      slow_mode: 5,
      parent_id: category.id,
      level: 3,
      permission_overwrites: [
        { role_id: 0, deny: SEND },
        { role_id: 1, allow: SEND },
      ],
      permission_users: [{ user_id: u.id, allow: MENTION, deny: 0 }],
      permission_sync: true,
    });
    expect(r.status).toBe(200);
    const channel = r.body.data.channel as Obj;
    expect(Object.keys(channel).sort()).toEqual(
      [
        'created_at',
        'guild_id',
        'id',
        'is_category',
        'level',
        'name',
        'parent_id',
        'permission_overwrites',
        'permission_sync',
        'permission_users',
        'slow_mode',
        'topic',
        'type',
        'updated_at',
        'user_id',
      ].sort(),
    );
    expect(channel).toMatchObject({
      guild_id: g.id,
      name: 'general',
      user_id: g.user_id,
      type: 1,
      slow_mode: 5,
      is_category: false,
      parent_id: category.id,
      level: 3,
      permission_sync: 1,
      permission_overwrites: [
        { role_id: 0, allow: 0, deny: SEND },
        { role_id: 1, allow: SEND, deny: 0 },
      ],
    });
    const pu = channel.permission_users as Array<{ user: Obj; allow: number; deny: number }>;
    expect(pu).toHaveLength(1);
    expect(pu[0]).toMatchObject({ allow: MENTION, deny: 0, user: { id: u.id, username: 'bob' } });
    expect(Object.keys(pu[0]!.user).sort()).toEqual(USER_KEYS);

    const view = await get(`/admin/api/channel/view?id=${channel.id}`);
    expect(view.body.data.channel).toEqual(channel);
  });

  it('updates only the given fields and replaces overwrite lists', async () => {
    const g = await createTestGuild(app);
    const c = await createTestChannel(app, g.id, {
      topic: 'keep',
      permission_overwrites: [{ role_id: 0, deny: SEND }],
    });
    const r = await post('/admin/api/channel/update', { id: c.id, name: 'new', permission_overwrites: [] });
    expect(r.body.data.channel).toMatchObject({ name: 'new', topic: 'keep', permission_overwrites: [] });
  });

  it('validates references: roles, users, parent category, guild', async () => {
    const g = await createTestGuild(app);
    const plain = await createTestChannel(app, g.id);
    const cases: Array<[Obj, number, string]> = [
      [{ permission_overwrites: [{ role_id: 9 }] }, 400, 'permission_overwrites[0].role_id'],
      [{ permission_overwrites: [{ role_id: 0 }, { role_id: 0 }] }, 400, 'permission_overwrites[1].role_id'],
      [{ permission_users: [{ user_id: 'ghost' }] }, 400, 'permission_users[0].user_id'],
      [{ parent_id: plain.id }, 400, 'parent_id'],
      [{ parent_id: 'nope' }, 400, 'parent_id'],
      [{ type: 3 }, 400, 'type'],
      [{ slow_mode: -1 }, 400, 'slow_mode'],
      [{ permission_overwrites: [{ role_id: 0, allow: -1 }] }, 400, 'permission_overwrites[0].allow'],
    ];
    for (const [extra, status, field] of cases) {
      const r = await post('/admin/api/channel/create', { guild_id: g.id, name: 'x', ...extra });
      expect([r.status, r.body.message]).toEqual([status, expect.stringContaining(field)]);
    }
    const noGuild = await post('/admin/api/channel/create', { guild_id: '404', name: 'x' });
    expect(noGuild.status).toBe(404);
    expect((await get('/admin/api/channel/view?id=404')).status).toBe(404);
  });

  it('lists the channels of a guild by level, with paging', async () => {
    const g = await createTestGuild(app);
    const ids = [];
    for (const level of [3, 1, 2])
      ids.push((await createTestChannel(app, g.id, { level, name: `l${level}` })).id);
    const r = await get(`/admin/api/channel/list?guild_id=${g.id}&page_size=2`);
    expect((r.body.data.items as Obj[]).map((c) => c.name)).toEqual(['l1', 'l2']);
    expect(r.body.data.meta).toEqual({ page: 1, page_total: 2, page_size: 2, total: 3 });
    expect(r.body.data.sort).toEqual([]);
    const desc = await get(`/admin/api/channel/list?guild_id=${g.id}&sort=-name`);
    expect((desc.body.data.items as Obj[]).map((c) => c.name)).toEqual(['l3', 'l2', 'l1']);
    expect((await get('/admin/api/channel/list')).status).toBe(400);
    expect((await get('/admin/api/channel/list?guild_id=404')).status).toBe(404);
  });
});

describe('guild members', () => {
  it('adds a bot by its user id with roles, updates, views, lists and removes it', async () => {
    const g = await createTestGuild(app, { roles: [{ name: 'a' }, { name: 'b' }] });
    const { bot } = await createTestBot(app, { name: 'member bot' });
    const userId = bot.user_id as string;
    const added = await post('/admin/api/guild-member/add', {
      guild_id: g.id,
      user_id: userId,
      roles: [2, 0, 2],
      nickname: 'mb',
    });
    expect(added.status).toBe(200);
    expect(added.body.data.member).toMatchObject({
      guild_id: g.id,
      user_id: userId,
      roles: [2],
      nickname: 'mb',
      user: { id: userId, bot: true, nickname: 'mb', roles: [2] },
    });
    const again = await post('/admin/api/guild-member/add', { guild_id: g.id, user_id: userId });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe(40902);
    const upd = await post('/admin/api/guild-member/update', {
      guild_id: g.id,
      user_id: userId,
      roles: [1, 2],
    });
    expect(upd.body.data.member).toMatchObject({ roles: [1, 2], nickname: 'mb' });
    const view = await get(`/admin/api/guild-member/view?guild_id=${g.id}&user_id=${userId}`);
    expect(view.body.data.member).toMatchObject({ roles: [1, 2] });
    const list = await get(`/admin/api/guild-member/list?guild_id=${g.id}&sort=user_id`);
    expect((list.body.data.items as Obj[]).map((m) => m.user_id)).toEqual([g.user_id, userId].sort());
    const removed = await post('/admin/api/guild-member/remove', { guild_id: g.id, user_id: userId });
    expect(removed.status).toBe(200);
    const gone = await post('/admin/api/guild-member/remove', { guild_id: g.id, user_id: userId });
    expect(gone.status).toBe(404);
  });

  it('refuses unknown roles, unknown users, and removing the owner', async () => {
    const g = await createTestGuild(app);
    const u = await upsertTestUser(app);
    const role = await post('/admin/api/guild-member/add', { guild_id: g.id, user_id: u.id, roles: [0, 4] });
    expect(role.status).toBe(400);
    expect(role.body.message).toContain('roles[1]');
    const user = await post('/admin/api/guild-member/add', { guild_id: g.id, user_id: 'ghost' });
    expect(user.status).toBe(400);
    expect(user.body.message).toContain('user_id');
    const guild = await post('/admin/api/guild-member/add', { guild_id: '404', user_id: u.id });
    expect(guild.status).toBe(404);
    expect(guild.body.message).toBe('服务器不存在');
    const owner = await post('/admin/api/guild-member/remove', { guild_id: g.id, user_id: g.user_id });
    expect(owner.status).toBe(409);
    expect(owner.body.message).toBe('请求冲突：服务器所有者不能退出服务器，请先转让服务器');
    const ownerEn = await post(
      '/admin/api/guild-member/remove',
      { guild_id: g.id, user_id: g.user_id },
      { 'Accept-Language': 'en-US' },
    );
    expect(ownerEn.body.message).toBe('Conflict: the owner cannot leave the guild; transfer it first');
    const notMember = await post('/admin/api/guild-member/update', {
      guild_id: g.id,
      user_id: u.id,
      roles: [],
    });
    expect(notMember.status).toBe(404);
    expect(notMember.body.message).toBe('服务器成员不存在');
  });

  it('keeps every concurrent role change of different members, and the last of one member', async () => {
    const g = await createTestGuild(app, { roles: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    const users = await Promise.all([1, 2, 3, 4].map(() => upsertTestUser(app)));
    await Promise.all(users.map((u) => addTestMember(app, g.id, u.id)));
    const rs = await Promise.all(
      users.flatMap((u) =>
        [[1], [2], [3]].map((roles) =>
          post('/admin/api/guild-member/update', { guild_id: g.id, user_id: u.id, roles, nickname: u.id }),
        ),
      ),
    );
    expect(rs.every((r) => r.status === 200)).toBe(true);
    for (const u of users) {
      const m = await app.res.store.members.get(g.id, u.id);
      expect(m?.nickname).toBe(u.id);
      expect(m?.roles).toHaveLength(1);
    }
  });
});

describe('effective permissions through the API', () => {
  it('answers the rule for members, non-members and the owner', async () => {
    const g = await createTestGuild(app, {
      roles: [
        { name: 'senders', permissions: 0 },
        { name: 'admins', permissions: 1 },
      ],
    });
    const c = await createTestChannel(app, g.id, {
      permission_overwrites: [
        { role_id: 0, deny: SEND },
        { role_id: 1, allow: SEND },
      ],
    });
    const plain = await upsertTestUser(app);
    const sender = await upsertTestUser(app);
    const admin = await upsertTestUser(app);
    const outsider = await upsertTestUser(app);
    await addTestMember(app, g.id, plain.id);
    await addTestMember(app, g.id, sender.id, [1]);
    await addTestMember(app, g.id, admin.id, [2]);
    const perms = async (userId: string) =>
      (await get(`/admin/api/channel/user-permissions?channel_id=${c.id}&user_id=${userId}`)).body.data;
    expect(await perms(plain.id)).toMatchObject({ member: true, permissions: VIEW, send_messages: false });
    expect(await perms(sender.id)).toMatchObject({ permissions: VIEW | SEND, send_messages: true });
    expect(await perms(admin.id)).toMatchObject({
      administrator: true,
      send_messages: true,
      permissions: Number.MAX_SAFE_INTEGER,
    });
    expect(await perms(outsider.id)).toMatchObject({ member: false, permissions: 0, view_channels: false });
    expect(await perms(g.user_id)).toMatchObject({ owner: true, permissions: Number.MAX_SAFE_INTEGER });
    const missing = await get(`/admin/api/channel/user-permissions?channel_id=404&user_id=${plain.id}`);
    expect(missing.status).toBe(404);
  });
});

describe('admin authentication', () => {
  it.each([
    ['POST', '/admin/api/user/upsert'],
    ['GET', '/admin/api/user/view?id=1'],
    ['POST', '/admin/api/guild/create'],
    ['GET', '/admin/api/guild/list'],
    ['POST', '/admin/api/channel/create'],
    ['GET', '/admin/api/channel/list?guild_id=1'],
    ['POST', '/admin/api/guild-member/add'],
    ['GET', '/admin/api/guild-member/list?guild_id=1'],
  ])('%s %s requires the admin token', async (method, path) => {
    const none = await app.request(method, path, method === 'POST' ? { json: {} } : {});
    expect(none.status).toBe(401);
    const { token } = await createTestBot(app);
    const asBot = await app.request(
      method,
      path,
      method === 'POST' ? { json: {}, bot: token } : { bot: token },
    );
    expect(asBot.status).toBe(401);
  });
});
