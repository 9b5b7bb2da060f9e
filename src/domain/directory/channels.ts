import { NotFoundError, ValidationError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { lockKey } from '../../redis/keys.js';
import {
  type ChannelChanges,
  type ChannelRecord,
  DuplicateRecordError,
  type GuildRecord,
  newNumericId,
  type Page,
  type PageRequest,
  type RoleOverwrite,
  type UserOverwrite,
} from '../../store/index.js';
import type { Deps } from '../deps.js';
import { publishDirectoryChange } from './change-feed.js';
import { requireGuild } from './guilds.js';

export const CHANNEL_TYPE = { TEXT: 1, VOICE: 2 } as const;
/** Most overwrites of each kind one channel holds. */
export const MAX_OVERWRITES = 250;

export interface ChannelInput {
  readonly name?: string;
  readonly user_id?: string;
  readonly topic?: string;
  readonly type?: number;
  readonly slow_mode?: number;
  readonly is_category?: boolean;
  readonly parent_id?: string;
  readonly level?: number;
  readonly permission_overwrites?: readonly RoleOverwrite[];
  readonly permission_users?: readonly UserOverwrite[];
  readonly permission_sync?: number;
}

export interface NewChannelInput extends ChannelInput {
  readonly guild_id: string;
  readonly name: string;
}

const channelLock = (deps: Deps, id: string) => lockKey(deps.config.redisPrefix, 'channel', id);

/** The channel, or null. */
export function getChannel(deps: Deps, id: string): Promise<ChannelRecord | null> {
  return deps.store.channels.get(id);
}

/** The channel, or 404. */
export async function requireChannel(deps: Deps, id: string): Promise<ChannelRecord> {
  const channel = await deps.store.channels.get(id);
  if (!channel) throw new NotFoundError('channel');
  return channel;
}

/** A channel messages can be sent to: a text channel that is not a category. */
export const isTextChannel = (channel: ChannelRecord): boolean =>
  channel.type === CHANNEL_TYPE.TEXT && !channel.is_category;

const invalid = (field: string, zh: string, en: string) =>
  new ValidationError(field, { 'zh-CN': zh, 'en-US': en });

/** Checks the fields that depend on other records: parent, creator, overwrite roles and users. */
async function checkReferences(
  deps: Deps,
  guild: GuildRecord,
  channelId: string | null,
  isCategory: boolean,
  input: ChannelInput,
): Promise<void> {
  if (input.parent_id !== undefined && input.parent_id !== '') {
    if (isCategory) throw invalid('parent_id', '分组频道不能有上级', 'must be empty for a category');
    const parent = input.parent_id === channelId ? null : await deps.store.channels.get(input.parent_id);
    if (!parent || parent.guild_id !== guild.id || !parent.is_category) {
      throw invalid(
        'parent_id',
        '必须是该服务器中某个分组频道的 id',
        'must be the id of a category channel of this guild',
      );
    }
  }
  if (input.user_id !== undefined && input.user_id !== '' && !(await deps.store.users.get(input.user_id))) {
    throw invalid('user_id', '用户不存在', 'no such user');
  }
  if (input.permission_overwrites) {
    const roleIds = new Set(guild.roles.map((r) => r.role_id));
    const seen = new Set<number>();
    input.permission_overwrites.forEach((o, i) => {
      const field = `permission_overwrites[${i}].role_id`;
      if (!roleIds.has(o.role_id)) throw invalid(field, '该服务器没有这个角色', 'no such role in this guild');
      if (seen.has(o.role_id)) throw invalid(field, '角色重复', 'appears more than once');
      seen.add(o.role_id);
    });
  }
  if (input.permission_users) {
    const ids = input.permission_users.map((o) => o.user_id);
    const known = new Set((await deps.store.users.getMany(ids)).map((u) => u.id));
    const seen = new Set<string>();
    input.permission_users.forEach((o, i) => {
      const field = `permission_users[${i}].user_id`;
      if (!known.has(o.user_id)) throw invalid(field, '用户不存在', 'no such user');
      if (seen.has(o.user_id)) throw invalid(field, '用户重复', 'appears more than once');
      seen.add(o.user_id);
    });
  }
}

const copyOverwrites = (input: ChannelInput) => ({
  permission_overwrites: input.permission_overwrites?.map((o) => ({
    role_id: o.role_id,
    allow: o.allow,
    deny: o.deny,
  })),
  permission_users: input.permission_users?.map((o) => ({
    user_id: o.user_id,
    allow: o.allow,
    deny: o.deny,
  })),
});

/** Creates a channel in an existing guild; the creator defaults to the guild's owner. */
export async function createChannel(deps: Deps, input: NewChannelInput): Promise<ChannelRecord> {
  const guild = await requireGuild(deps, input.guild_id);
  const isCategory = input.is_category ?? false;
  await checkReferences(deps, guild, null, isCategory, input);
  const ow = copyOverwrites(input);
  const fields = {
    guild_id: guild.id,
    name: input.name,
    user_id: input.user_id || guild.user_id,
    topic: input.topic ?? '',
    type: input.type ?? CHANNEL_TYPE.TEXT,
    slow_mode: input.slow_mode ?? 0,
    is_category: isCategory,
    parent_id: input.parent_id ?? '',
    level: input.level ?? 0,
    permission_overwrites: ow.permission_overwrites ?? [],
    permission_users: ow.permission_users ?? [],
    permission_sync: input.permission_sync ?? 0,
  };
  let channel: ChannelRecord;
  try {
    channel = await deps.store.channels.create({ id: newNumericId(), ...fields }, deps.now());
  } catch (err) {
    if (!(err instanceof DuplicateRecordError)) throw err;
    channel = await deps.store.channels.create({ id: newNumericId(), ...fields }, deps.now());
  }
  await publishDirectoryChange(deps, { kind: 'channel', id: channel.id, guild_id: channel.guild_id });
  return channel;
}

/** Changes the given fields; overwrite lists given replace the stored ones. */
export async function updateChannel(deps: Deps, id: string, input: ChannelInput): Promise<ChannelRecord> {
  const channel = await withRecordLock(deps.redis, channelLock(deps, id), async () => {
    const current = await requireChannel(deps, id);
    const guild = await requireGuild(deps, current.guild_id);
    const isCategory = input.is_category ?? current.is_category;
    if (isCategory && !current.is_category && current.parent_id !== '' && input.parent_id !== '') {
      throw invalid(
        'is_category',
        '有上级的频道不能成为分组',
        'a channel with a parent cannot become a category',
      );
    }
    await checkReferences(deps, guild, id, isCategory, input);
    const changes: ChannelChanges = {
      name: input.name,
      user_id: input.user_id,
      topic: input.topic,
      type: input.type,
      slow_mode: input.slow_mode,
      is_category: input.is_category,
      parent_id: input.parent_id,
      level: input.level,
      ...copyOverwrites(input),
      permission_sync: input.permission_sync,
    };
    const updated = await deps.store.channels.update(id, changes, deps.now());
    if (!updated) throw new NotFoundError('channel');
    return updated;
  });
  await publishDirectoryChange(deps, { kind: 'channel', id: channel.id, guild_id: channel.guild_id });
  return channel;
}

export async function listChannels(
  deps: Deps,
  guildId: string,
  page: PageRequest,
): Promise<Page<ChannelRecord>> {
  await requireGuild(deps, guildId);
  return deps.store.channels.list(guildId, page);
}

/** Every channel of a guild (up to MAX_GUILD_CHANNELS), by level then id. */
export function listGuildChannels(deps: Deps, guildId: string): Promise<ChannelRecord[]> {
  return deps.store.channels.listAll(guildId);
}
