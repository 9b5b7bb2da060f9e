import { NotFoundError, ValidationError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { lockKey } from '../../redis/keys.js';
import {
  type BotRecord,
  DuplicateRecordError,
  EVERYONE_ROLE_ID,
  type GuildChanges,
  type GuildRecord,
  newNumericId,
  type Page,
  type PageRequest,
  type RoleRecord,
} from '../../store/index.js';
import type { Deps } from '../deps.js';
import { DEFAULT_EVERYONE_PERMISSIONS } from '../permissions.js';
import { publishDirectoryChange } from './change-feed.js';
import { requireUser } from './users.js';

/** The everyone role's name on the platform. */
export const EVERYONE_ROLE_NAME = '@全体成员';
/** Most roles one guild holds, everyone included. */
export const MAX_GUILD_ROLES = 250;

export interface RoleInput {
  /** Omitted: a new role, numbered after the highest id in use. */
  readonly role_id?: number;
  readonly name?: string;
  readonly color?: number;
  readonly position?: number;
  readonly hoist?: number;
  readonly mentionable?: number;
  readonly permissions?: number;
}

export interface GuildInput {
  readonly name?: string;
  readonly topic?: string;
  readonly user_id?: string;
  readonly icon?: string;
  readonly notify_type?: number;
  readonly region?: string;
  readonly enable_open?: boolean;
  readonly open_id?: string;
  readonly default_channel_id?: string;
  readonly welcome_channel_id?: string;
  /**
   * The whole role list. Role 0 (everyone) is kept if left out; other roles left out are
   * deleted (members that hold them keep the id, which then counts for nothing).
   */
  readonly roles?: readonly RoleInput[];
}

export interface NewGuildInput extends GuildInput {
  readonly name: string;
  readonly user_id: string;
  /** The everyone role's mask when `roles` has no role 0 (default DEFAULT_EVERYONE_PERMISSIONS). */
  readonly everyone_permissions?: number;
}

const guildLock = (deps: Deps, id: string) => lockKey(deps.config.redisPrefix, 'guild', id);

/** The guild, or null. */
export function getGuild(deps: Deps, id: string): Promise<GuildRecord | null> {
  return deps.store.guilds.get(id);
}

/** The guild, or 404. */
export async function requireGuild(deps: Deps, id: string): Promise<GuildRecord> {
  const guild = await deps.store.guilds.get(id);
  if (!guild) throw new NotFoundError('guild');
  return guild;
}

const role = (r: RoleInput, id: number, base?: RoleRecord): RoleRecord => ({
  role_id: id,
  name: r.name ?? base?.name ?? (id === EVERYONE_ROLE_ID ? EVERYONE_ROLE_NAME : `role ${id}`),
  color: r.color ?? base?.color ?? 0,
  position: r.position ?? base?.position ?? 0,
  hoist: r.hoist ?? base?.hoist ?? 0,
  mentionable: r.mentionable ?? base?.mentionable ?? 0,
  permissions: r.permissions ?? base?.permissions ?? 0,
});

/**
 * The role list a guild will hold: ids unique, role 0 first and always present (`everyone`
 * when the input has none), new roles numbered after the highest id in use (including ids of
 * `previous`, so a deleted role's id is not handed out again while the guild is unchanged).
 * A listed role keeps the fields it does not give from `previous`.
 */
export function buildRoles(
  input: readonly RoleInput[],
  previous: readonly RoleRecord[],
  everyone: RoleRecord,
): RoleRecord[] {
  if (input.length > MAX_GUILD_ROLES) {
    throw new ValidationError('roles', {
      'zh-CN': `最多 ${MAX_GUILD_ROLES} 项`,
      'en-US': `must have at most ${MAX_GUILD_ROLES} items`,
    });
  }
  const seen = new Set<number>();
  input.forEach((r, i) => {
    if (r.role_id === undefined) return;
    if (seen.has(r.role_id)) {
      throw new ValidationError(`roles[${i}].role_id`, {
        'zh-CN': `角色 id ${r.role_id} 重复`,
        'en-US': `role id ${r.role_id} appears more than once`,
      });
    }
    seen.add(r.role_id);
  });
  const prev = new Map(previous.map((r) => [r.role_id, r]));
  let next = Math.max(0, ...seen, ...prev.keys()) + 1;
  const out = input.map((r) => {
    const id = r.role_id ?? next++;
    return role(r, id, prev.get(id));
  });
  const everyoneIdx = out.findIndex((r) => r.role_id === EVERYONE_ROLE_ID);
  const everyoneRole = everyoneIdx >= 0 ? out.splice(everyoneIdx, 1)[0]! : everyone;
  return [everyoneRole, ...out];
}

/** A default or welcome channel must be a non-category channel of the guild. */
async function checkGuildChannel(deps: Deps, guildId: string, field: string, channelId: string | undefined) {
  if (channelId === undefined || channelId === '') return;
  const channel = await deps.store.channels.get(channelId);
  if (!channel || channel.guild_id !== guildId || channel.is_category) {
    throw new ValidationError(field, {
      'zh-CN': '必须是该服务器中某个非分组频道的 id',
      'en-US': 'must be the id of a channel (not a category) of this guild',
    });
  }
}

/** Owners are members: makes `userId` a member of the guild if it is not one. */
async function ensureMember(deps: Deps, guildId: string, userId: string): Promise<void> {
  if (await deps.store.members.get(guildId, userId)) return;
  try {
    await deps.store.members.add({ guild_id: guildId, user_id: userId, nickname: '', roles: [] }, deps.now());
  } catch (err) {
    if (!(err instanceof DuplicateRecordError)) throw err;
  }
  await publishDirectoryChange(deps, { kind: 'member', id: userId, guild_id: guildId });
}

/** Creates a guild with role 0 (everyone); the owner (an existing user) becomes a member. */
export async function createGuild(deps: Deps, input: NewGuildInput): Promise<GuildRecord> {
  await requireUser(deps, input.user_id).catch((err) => {
    if (err instanceof NotFoundError) {
      throw new ValidationError('user_id', { 'zh-CN': '用户不存在', 'en-US': 'no such user' });
    }
    throw err;
  });
  const everyone = role({ permissions: input.everyone_permissions ?? DEFAULT_EVERYONE_PERMISSIONS }, 0);
  const roles = buildRoles(input.roles ?? [], [], everyone);
  for (const field of ['default_channel_id', 'welcome_channel_id'] as const) {
    if (input[field]) {
      // A new guild has no channels yet: set these with guild/update once the channel exists.
      throw new ValidationError(field, {
        'zh-CN': '创建服务器时必须为空（先创建频道，再用 guild/update 设置）',
        'en-US': 'must be empty at create (create the channel, then set it with guild/update)',
      });
    }
  }
  const fields = {
    name: input.name,
    topic: input.topic ?? '',
    user_id: input.user_id,
    icon: input.icon ?? '',
    notify_type: input.notify_type ?? 0,
    region: input.region ?? '',
    enable_open: input.enable_open ?? false,
    open_id: input.open_id ?? '',
    default_channel_id: '',
    welcome_channel_id: '',
    roles,
  };
  let guild: GuildRecord;
  try {
    guild = await deps.store.guilds.create({ id: newNumericId(), ...fields }, deps.now());
  } catch (err) {
    // Two ids from one millisecond and one random draw: take another.
    if (!(err instanceof DuplicateRecordError)) throw err;
    guild = await deps.store.guilds.create({ id: newNumericId(), ...fields }, deps.now());
  }
  await ensureMember(deps, guild.id, guild.user_id);
  await publishDirectoryChange(deps, { kind: 'guild', id: guild.id });
  return guild;
}

/** Changes the given fields; `roles` replaces the role list (see GuildInput.roles). */
export async function updateGuild(deps: Deps, id: string, input: GuildInput): Promise<GuildRecord> {
  const guild = await withRecordLock(deps.redis, guildLock(deps, id), async () => {
    const current = await requireGuild(deps, id);
    if (input.user_id !== undefined && input.user_id !== current.user_id) {
      const owner = await deps.store.users.get(input.user_id);
      if (!owner) throw new ValidationError('user_id', { 'zh-CN': '用户不存在', 'en-US': 'no such user' });
    }
    await checkGuildChannel(deps, id, 'default_channel_id', input.default_channel_id);
    await checkGuildChannel(deps, id, 'welcome_channel_id', input.welcome_channel_id);
    const everyone = current.roles.find((r) => r.role_id === EVERYONE_ROLE_ID) ?? role({}, 0);
    const changes: GuildChanges = {
      name: input.name,
      topic: input.topic,
      user_id: input.user_id,
      icon: input.icon,
      notify_type: input.notify_type,
      region: input.region,
      enable_open: input.enable_open,
      open_id: input.open_id,
      default_channel_id: input.default_channel_id,
      welcome_channel_id: input.welcome_channel_id,
      roles: input.roles ? buildRoles(input.roles, current.roles, everyone) : undefined,
    };
    const updated = await deps.store.guilds.update(id, changes, deps.now());
    if (!updated) throw new NotFoundError('guild');
    return updated;
  });
  await ensureMember(deps, guild.id, guild.user_id);
  await publishDirectoryChange(deps, { kind: 'guild', id: guild.id });
  return guild;
}

export function listGuilds(deps: Deps, page: PageRequest): Promise<Page<GuildRecord>> {
  return deps.store.guilds.list(page);
}

/** The guilds the bot's user is a member of, by id (what templates may read). */
export async function listBotGuilds(deps: Deps, bot: BotRecord): Promise<GuildRecord[]> {
  return deps.store.guilds.getMany(await deps.store.members.guildIdsOf(bot.user_id));
}
