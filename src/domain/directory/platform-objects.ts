import type { Channel, Guild, Role, User } from '../../render/platform.js';
import type { ChannelRecord, GuildRecord, MemberRecord, RoleRecord, UserRecord } from '../../store/index.js';

/*
 * The platform's objects as templates (PLATFORM.getGuild() and friends) and admin views show
 * them, with exactly the fields of platform-facts.md. Pure builders over store records.
 */

// The object shapes are render's (src/render/platform.ts), which templates read; the builders
// here always fill every field, so a user object is the complete one.
export type PlatformUser = Required<User>;
export type PlatformRole = Role;
export type PlatformChannel = Channel;
export type PlatformGuild = Guild;

/**
 * A user object. With `member` (the user's membership of a guild), `roles` holds its role ids
 * and a guild nickname, if set, replaces the user's own.
 */
export function toPlatformUser(user: UserRecord, member?: MemberRecord | null): PlatformUser {
  return {
    id: user.id,
    username: user.username,
    nickname: member?.nickname ? member.nickname : user.nickname,
    identify_num: user.identify_num,
    online: user.online,
    bot: user.bot,
    status: user.status,
    avatar: user.avatar,
    vip_avatar: user.vip_avatar,
    mobile_verified: user.mobile_verified,
    roles: member ? [...member.roles] : [],
  };
}

/** A user the directory does not know (e.g. deleted): only its id, the other fields empty. */
export function unknownUserRecord(id: string): UserRecord {
  return {
    id,
    username: '',
    nickname: '',
    identify_num: '',
    online: false,
    bot: false,
    status: 0,
    avatar: '',
    vip_avatar: '',
    mobile_verified: false,
    updated_at: 0,
  };
}

export const toPlatformRole = (r: RoleRecord): PlatformRole => ({
  role_id: r.role_id,
  name: r.name,
  color: r.color,
  position: r.position,
  hoist: r.hoist,
  mentionable: r.mentionable,
  permissions: r.permissions,
});

/**
 * A channel object. `permission_users` holds user ids in the store; `users` (the users of
 * those ids, any order, extra users ignored) turns each into a user object. A user not given
 * is rendered with its id and empty fields.
 */
export function toPlatformChannel(
  channel: ChannelRecord,
  users: readonly UserRecord[] = [],
): PlatformChannel {
  const byId = new Map(users.map((u) => [u.id, u]));
  return {
    id: channel.id,
    name: channel.name,
    user_id: channel.user_id,
    guild_id: channel.guild_id,
    topic: channel.topic,
    is_category: channel.is_category,
    parent_id: channel.parent_id,
    level: channel.level,
    slow_mode: channel.slow_mode,
    type: channel.type,
    permission_overwrites: channel.permission_overwrites.map((o) => ({
      role_id: o.role_id,
      allow: o.allow,
      deny: o.deny,
    })),
    permission_users: channel.permission_users.map((o) => {
      const u = byId.get(o.user_id);
      return {
        user: u ? toPlatformUser(u) : toPlatformUser(unknownUserRecord(o.user_id)),
        allow: o.allow,
        deny: o.deny,
      };
    }),
    permission_sync: channel.permission_sync,
  };
}

/** A guild object with the given channels (pass [] for none), `users` as for channels. */
export function toPlatformGuild(
  guild: GuildRecord,
  channels: readonly ChannelRecord[],
  users: readonly UserRecord[] = [],
): PlatformGuild {
  return {
    id: guild.id,
    name: guild.name,
    topic: guild.topic,
    user_id: guild.user_id,
    icon: guild.icon,
    notify_type: guild.notify_type,
    region: guild.region,
    enable_open: guild.enable_open,
    open_id: guild.open_id,
    default_channel_id: guild.default_channel_id,
    welcome_channel_id: guild.welcome_channel_id,
    roles: guild.roles.map(toPlatformRole),
    channels: channels.map((c) => toPlatformChannel(c, users)),
  };
}

/** The user ids a set of channels' user overwrites name (to load before building views). */
export const overwriteUserIds = (channels: readonly ChannelRecord[]): string[] => [
  ...new Set(channels.flatMap((c) => c.permission_users.map((o) => o.user_id))),
];
