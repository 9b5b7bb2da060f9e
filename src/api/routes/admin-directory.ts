import type Router from '@koa/router';
import { getBot } from '../../domain/bots.js';
import type { Deps } from '../../domain/deps.js';
import {
  addMember,
  type ChannelInput,
  createChannel,
  createGuild,
  explainBotSend,
  type GuildInput,
  getUsers,
  listChannels,
  listGuildChannels,
  listGuilds,
  listMembers,
  overwriteUserIds,
  type RoleInput,
  removeMember,
  requireChannel,
  requireGuild,
  requireMember,
  requireUser,
  toPlatformChannel,
  toPlatformGuild,
  toPlatformUser,
  updateChannel,
  updateGuild,
  updateMember,
  upsertUser,
  userPermissionsInChannel,
} from '../../domain/directory/index.js';
import { hasPermission, PERMISSION } from '../../domain/permissions.js';
import { NotFoundError } from '../../errors/index.js';
import type { ChannelRecord, GuildRecord, MemberRecord, UserRecord } from '../../store/index.js';
import { requireAdmin } from '../auth.js';
import { pageMeta, parsePage } from '../paging.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';

/*
 * The platform directory back office: users, guilds (with roles), channels and guild members.
 * Operators only (admin bearer token). See docs/directory.md.
 */

/** A permission mask: an unsigned integer exact as a JS number (bits 0 to 52). */
const maskSchema = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
/** The platform writes these flags as 0/1; booleans are accepted too. */
const flagSchema = { type: ['integer', 'boolean'], enum: [0, 1, true, false] } as const;
/** An id that may be '' (none). */
const optionalIdSchema = { type: 'string', maxLength: 64 } as const;
const urlSchema = { type: 'string', maxLength: 1024 } as const;
const roleIdSchema = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;

type Flag = 0 | 1 | boolean;
const flag = (v: Flag | undefined): number | undefined => (v === undefined ? undefined : Number(v));

// ---------------------------------------------------------------- users

interface UserBody {
  id: string;
  username: string;
  nickname?: string;
  identify_num?: string;
  avatar?: string;
  vip_avatar?: string;
  online?: boolean;
  status?: number;
  mobile_verified?: boolean;
}

const userUpsertBody = compileValidator<UserBody>({
  type: 'object',
  properties: {
    id: idSchema,
    username: { type: 'string', minLength: 1, maxLength: 64 },
    nickname: { type: 'string', maxLength: 64 },
    identify_num: {
      type: 'string',
      maxLength: 16,
      pattern: '^[0-9]*$',
      'x-pattern': { 'zh-CN': '仅限数字', 'en-US': 'digits' },
    },
    avatar: urlSchema,
    vip_avatar: urlSchema,
    online: { type: 'boolean' },
    status: { type: 'integer', enum: [0, 1, 10] },
    mobile_verified: { type: 'boolean' },
  },
  required: ['id', 'username'],
});

const idQuery = compileValidator<{ id: string }>({
  type: 'object',
  properties: { id: idSchema },
  required: ['id'],
});

const userView = (u: UserRecord) => ({ ...toPlatformUser(u), updated_at: u.updated_at });

// ---------------------------------------------------------------- guilds

const roleSchema = {
  type: 'object',
  properties: {
    role_id: roleIdSchema,
    name: { type: 'string', maxLength: 100 },
    color: { type: 'integer', minimum: 0, maximum: 0xffffff },
    position: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    hoist: flagSchema,
    mentionable: flagSchema,
    permissions: maskSchema,
  },
} as const;

const guildFields = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  topic: { type: 'string', maxLength: 1000 },
  user_id: idSchema,
  icon: urlSchema,
  notify_type: { type: 'integer', minimum: 0, maximum: 3 },
  region: { type: 'string', maxLength: 64 },
  enable_open: { type: 'boolean' },
  open_id: { type: ['string', 'integer'], maxLength: 64 },
  default_channel_id: optionalIdSchema,
  welcome_channel_id: optionalIdSchema,
  roles: { type: 'array', maxItems: 250, items: roleSchema },
} as const;

interface RoleBody extends Omit<RoleInput, 'hoist' | 'mentionable'> {
  hoist?: Flag;
  mentionable?: Flag;
}
interface GuildBody extends Omit<GuildInput, 'roles' | 'open_id'> {
  open_id?: string | number;
  roles?: RoleBody[];
}

const guildCreateBody = compileValidator<
  GuildBody & { name: string; user_id: string; everyone_permissions?: number }
>({
  type: 'object',
  properties: { ...guildFields, everyone_permissions: maskSchema },
  required: ['name', 'user_id'],
});
const guildUpdateBody = compileValidator<GuildBody & { id: string }>({
  type: 'object',
  properties: { id: idSchema, ...guildFields },
  required: ['id'],
});

/** Copies only known fields. */
const guildInput = (b: GuildBody): GuildInput => ({
  name: b.name,
  topic: b.topic,
  user_id: b.user_id,
  icon: b.icon,
  notify_type: b.notify_type,
  region: b.region,
  enable_open: b.enable_open,
  open_id: b.open_id === undefined ? undefined : String(b.open_id),
  default_channel_id: b.default_channel_id,
  welcome_channel_id: b.welcome_channel_id,
  roles: b.roles?.map((r) => ({
    role_id: r.role_id,
    name: r.name,
    color: r.color,
    position: r.position,
    hoist: flag(r.hoist),
    mentionable: flag(r.mentionable),
    permissions: r.permissions,
  })),
});

const stamps = (r: { created_at: number; updated_at: number }) => ({
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** A guild with its channels (and the users their overwrites name). */
async function guildView(deps: Deps, guild: GuildRecord) {
  const channels = await listGuildChannels(deps, guild.id);
  const users = await getUsers(deps, overwriteUserIds(channels));
  return { ...toPlatformGuild(guild, channels, users), ...stamps(guild) };
}

/** A guild in a list: no channels. */
const guildSummary = (guild: GuildRecord) => {
  const { channels: _omitted, ...rest } = toPlatformGuild(guild, []);
  return { ...rest, ...stamps(guild) };
};

// ---------------------------------------------------------------- channels

const overwriteMasks = { allow: maskSchema, deny: maskSchema } as const;
const channelFields = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  user_id: idSchema,
  topic: { type: 'string', maxLength: 1024 },
  type: { type: 'integer', enum: [1, 2] },
  slow_mode: { type: 'integer', minimum: 0, maximum: 21_600 },
  is_category: { type: 'boolean' },
  parent_id: optionalIdSchema,
  level: { type: 'integer', minimum: 0, maximum: 1_000_000 },
  permission_overwrites: {
    type: 'array',
    maxItems: 250,
    items: {
      type: 'object',
      properties: { role_id: roleIdSchema, ...overwriteMasks },
      required: ['role_id'],
    },
  },
  permission_users: {
    type: 'array',
    maxItems: 250,
    items: { type: 'object', properties: { user_id: idSchema, ...overwriteMasks }, required: ['user_id'] },
  },
  permission_sync: flagSchema,
} as const;

interface OverwriteBody {
  allow?: number;
  deny?: number;
}
interface ChannelBody {
  name?: string;
  user_id?: string;
  topic?: string;
  type?: number;
  slow_mode?: number;
  is_category?: boolean;
  parent_id?: string;
  level?: number;
  permission_overwrites?: Array<OverwriteBody & { role_id: number }>;
  permission_users?: Array<OverwriteBody & { user_id: string }>;
  permission_sync?: Flag;
}

const channelCreateBody = compileValidator<ChannelBody & { guild_id: string; name: string }>({
  type: 'object',
  properties: { guild_id: idSchema, ...channelFields },
  required: ['guild_id', 'name'],
});
const channelUpdateBody = compileValidator<ChannelBody & { id: string }>({
  type: 'object',
  properties: { id: idSchema, ...channelFields },
  required: ['id'],
});
const channelListQuery = compileValidator<{ guild_id: string }>({
  type: 'object',
  properties: { guild_id: idSchema },
  required: ['guild_id'],
});
const explainQuery = compileValidator<{ channel_id: string; bot_id: string }>({
  type: 'object',
  properties: { channel_id: idSchema, bot_id: idSchema },
  required: ['channel_id', 'bot_id'],
});
const permissionsQuery = compileValidator<{ channel_id: string; user_id: string }>({
  type: 'object',
  properties: { channel_id: idSchema, user_id: idSchema },
  required: ['channel_id', 'user_id'],
});

const channelInput = (b: ChannelBody): ChannelInput => ({
  name: b.name,
  user_id: b.user_id,
  topic: b.topic,
  type: b.type,
  slow_mode: b.slow_mode,
  is_category: b.is_category,
  parent_id: b.parent_id,
  level: b.level,
  permission_overwrites: b.permission_overwrites?.map((o) => ({
    role_id: o.role_id,
    allow: o.allow ?? 0,
    deny: o.deny ?? 0,
  })),
  permission_users: b.permission_users?.map((o) => ({
    user_id: o.user_id,
    allow: o.allow ?? 0,
    deny: o.deny ?? 0,
  })),
  permission_sync: flag(b.permission_sync),
});

async function channelView(deps: Deps, channel: ChannelRecord) {
  const users = await getUsers(deps, overwriteUserIds([channel]));
  return { ...toPlatformChannel(channel, users), ...stamps(channel) };
}

// ---------------------------------------------------------------- members

const memberFields = {
  guild_id: idSchema,
  user_id: idSchema,
  roles: { type: 'array', maxItems: 250, items: roleIdSchema },
  nickname: { type: 'string', maxLength: 64 },
} as const;

interface MemberBody {
  guild_id: string;
  user_id: string;
  roles?: number[];
  nickname?: string;
}

const memberBody = compileValidator<MemberBody>({
  type: 'object',
  properties: memberFields,
  required: ['guild_id', 'user_id'],
});
const memberKey = compileValidator<{ guild_id: string; user_id: string }>({
  type: 'object',
  properties: { guild_id: idSchema, user_id: idSchema },
  required: ['guild_id', 'user_id'],
});

const memberView = (m: MemberRecord, user: UserRecord | undefined) => ({
  guild_id: m.guild_id,
  user_id: m.user_id,
  nickname: m.nickname,
  roles: [...m.roles],
  joined_at: m.joined_at,
  updated_at: m.updated_at,
  user: user ? toPlatformUser(user, m) : null,
});

async function memberViews(deps: Deps, members: readonly MemberRecord[]) {
  const users = new Map(
    (
      await getUsers(
        deps,
        members.map((m) => m.user_id),
      )
    ).map((u) => [u.id, u]),
  );
  return members.map((m) => memberView(m, users.get(m.user_id)));
}

// ---------------------------------------------------------------- routes

export function adminDirectoryRoutes(router: Router<HeraldState>, deps: Deps): void {
  const admin = requireAdmin(deps);

  router.post('/admin/api/user/upsert', admin, async (ctx) => {
    const b = userUpsertBody(ctx.request.body);
    const user = await upsertUser(deps, b.id, {
      username: b.username,
      nickname: b.nickname,
      identify_num: b.identify_num,
      avatar: b.avatar,
      vip_avatar: b.vip_avatar,
      online: b.online,
      status: b.status,
      mobile_verified: b.mobile_verified,
    });
    reply(ctx, { user: userView(user) });
  });

  router.get('/admin/api/user/view', admin, async (ctx) => {
    const { id } = idQuery(ctx.query);
    reply(ctx, { user: userView(await requireUser(deps, id)) });
  });

  router.post('/admin/api/guild/create', admin, async (ctx) => {
    const b = guildCreateBody(ctx.request.body);
    const guild = await createGuild(deps, {
      ...guildInput(b),
      name: b.name,
      user_id: b.user_id,
      everyone_permissions: b.everyone_permissions,
    });
    reply(ctx, { guild: await guildView(deps, guild) });
  });

  router.post('/admin/api/guild/update', admin, async (ctx) => {
    const b = guildUpdateBody(ctx.request.body);
    reply(ctx, { guild: await guildView(deps, await updateGuild(deps, b.id, guildInput(b))) });
  });

  router.get('/admin/api/guild/view', admin, async (ctx) => {
    const { id } = idQuery(ctx.query);
    reply(ctx, { guild: await guildView(deps, await requireGuild(deps, id)) });
  });

  router.get('/admin/api/guild/list', admin, async (ctx) => {
    const { request, sortEcho } = parsePage(ctx.query, ['id', 'name', 'created_at', 'updated_at'], 'id');
    const page = await listGuilds(deps, request);
    reply(ctx, { items: page.items.map(guildSummary), meta: pageMeta(request, page.total), sort: sortEcho });
  });

  router.post('/admin/api/channel/create', admin, async (ctx) => {
    const b = channelCreateBody(ctx.request.body);
    const channel = await createChannel(deps, { ...channelInput(b), guild_id: b.guild_id, name: b.name });
    reply(ctx, { channel: await channelView(deps, channel) });
  });

  router.post('/admin/api/channel/update', admin, async (ctx) => {
    const b = channelUpdateBody(ctx.request.body);
    reply(ctx, { channel: await channelView(deps, await updateChannel(deps, b.id, channelInput(b))) });
  });

  router.get('/admin/api/channel/view', admin, async (ctx) => {
    const { id } = idQuery(ctx.query);
    reply(ctx, { channel: await channelView(deps, await requireChannel(deps, id)) });
  });

  router.get('/admin/api/channel/list', admin, async (ctx) => {
    const { guild_id } = channelListQuery(ctx.query);
    const { request, sortEcho } = parsePage(
      ctx.query,
      ['id', 'name', 'level', 'created_at', 'updated_at'],
      'level',
    );
    const page = await listChannels(deps, guild_id, request);
    const users = await getUsers(deps, overwriteUserIds(page.items));
    reply(ctx, {
      items: page.items.map((c) => ({ ...toPlatformChannel(c, users), ...stamps(c) })),
      meta: pageMeta(request, page.total),
      sort: sortEcho,
    });
  });

  /** What a user may do in a channel: the mask and the documented bits, for operators. */
  router.get('/admin/api/channel/user-permissions', admin, async (ctx) => {
    const { channel_id, user_id } = permissionsQuery(ctx.query);
    const access = await userPermissionsInChannel(deps, user_id, channel_id);
    if (!access) throw new NotFoundError('channel');
    const p = access.permissions;
    reply(ctx, {
      channel_id,
      guild_id: access.guild.id,
      user_id,
      member: access.member !== null,
      owner: access.guild.user_id === user_id,
      permissions: p,
      administrator: hasPermission(p, PERMISSION.ADMINISTRATOR),
      view_channels: hasPermission(p, PERMISSION.VIEW_CHANNELS),
      send_messages: hasPermission(p, PERMISSION.SEND_MESSAGES),
      mention_everyone: hasPermission(p, PERMISSION.MENTION_EVERYONE),
    });
  });

  /** "Can this bot send here?": the decision the workers' check makes, with what decides it. */
  router.get('/admin/api/channel/explain-send', admin, async (ctx) => {
    const { channel_id, bot_id } = explainQuery(ctx.query);
    reply(ctx, await explainBotSend(deps, await getBot(deps, bot_id), channel_id));
  });

  router.post('/admin/api/guild-member/add', admin, async (ctx) => {
    const b = memberBody(ctx.request.body);
    const member = await addMember(deps, b.guild_id, b.user_id, { roles: b.roles, nickname: b.nickname });
    reply(ctx, { member: (await memberViews(deps, [member]))[0] });
  });

  router.post('/admin/api/guild-member/update', admin, async (ctx) => {
    const b = memberBody(ctx.request.body);
    const member = await updateMember(deps, b.guild_id, b.user_id, { roles: b.roles, nickname: b.nickname });
    reply(ctx, { member: (await memberViews(deps, [member]))[0] });
  });

  router.post('/admin/api/guild-member/remove', admin, async (ctx) => {
    const b = memberKey(ctx.request.body);
    await removeMember(deps, b.guild_id, b.user_id);
    reply(ctx, {});
  });

  router.get('/admin/api/guild-member/view', admin, async (ctx) => {
    const q = memberKey(ctx.query);
    const member = await requireMember(deps, q.guild_id, q.user_id);
    reply(ctx, { member: (await memberViews(deps, [member]))[0] });
  });

  router.get('/admin/api/guild-member/list', admin, async (ctx) => {
    const { guild_id } = channelListQuery(ctx.query);
    const { request, sortEcho } = parsePage(ctx.query, ['user_id', 'joined_at', 'updated_at'], 'joined_at');
    const page = await listMembers(deps, guild_id, request);
    reply(ctx, {
      items: await memberViews(deps, page.items),
      meta: pageMeta(request, page.total),
      sort: sortEcho,
    });
  });
}
