import { HeraldError, NotFoundError, ValidationError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { lockKey } from '../../redis/keys.js';
import {
  DuplicateRecordError,
  EVERYONE_ROLE_ID,
  type GuildRecord,
  type MemberRecord,
  type Page,
  type PageRequest,
} from '../../store/index.js';
import type { Deps } from '../deps.js';
import { publishDirectoryChange } from './change-feed.js';
import { requireGuild } from './guilds.js';

export interface MemberInput {
  /** Role ids of the guild; 0 (everyone) may be listed and is dropped (every member holds it). */
  readonly roles?: readonly number[];
  /** The member's nickname in the guild; '' for none. */
  readonly nickname?: string;
}

const memberLock = (deps: Deps, guildId: string, userId: string) =>
  lockKey(deps.config.redisPrefix, 'member', guildId, userId);

/** The membership, or null when the user is not a member of the guild. */
export function getMember(deps: Deps, guildId: string, userId: string): Promise<MemberRecord | null> {
  return deps.store.members.get(guildId, userId);
}

/** The membership, or 404. */
export async function requireMember(deps: Deps, guildId: string, userId: string): Promise<MemberRecord> {
  const member = await deps.store.members.get(guildId, userId);
  if (!member) throw new NotFoundError('guild member');
  return member;
}

/** Role ids as stored: existing roles of the guild, without 0, without repeats, in given order. */
function memberRoles(guild: GuildRecord, roles: readonly number[]): number[] {
  const known = new Set(guild.roles.map((r) => r.role_id));
  roles.forEach((id, i) => {
    if (!known.has(id)) {
      throw new ValidationError(`roles[${i}]`, {
        'zh-CN': `该服务器没有角色 ${id}`,
        'en-US': `the guild has no role ${id}`,
      });
    }
  });
  return [...new Set(roles.filter((id) => id !== EVERYONE_ROLE_ID))];
}

/** Adds an existing user (a bot joins with its bot.user_id) to the guild; 409 if already one. */
export async function addMember(
  deps: Deps,
  guildId: string,
  userId: string,
  input: MemberInput = {},
): Promise<MemberRecord> {
  const guild = await requireGuild(deps, guildId);
  if (!(await deps.store.users.get(userId))) {
    throw new ValidationError('user_id', { 'zh-CN': '用户不存在', 'en-US': 'no such user' });
  }
  const roles = memberRoles(guild, input.roles ?? []);
  let member: MemberRecord;
  try {
    member = await deps.store.members.add(
      { guild_id: guildId, user_id: userId, nickname: input.nickname ?? '', roles },
      deps.now(),
    );
  } catch (err) {
    if (err instanceof DuplicateRecordError) throw new HeraldError('MEMBER_EXISTS', { user_id: userId });
    throw err;
  }
  await publishDirectoryChange(deps, { kind: 'member', id: userId, guild_id: guildId });
  return member;
}

/** Changes a member's roles (the whole list) and/or nickname. */
export async function updateMember(
  deps: Deps,
  guildId: string,
  userId: string,
  input: MemberInput,
): Promise<MemberRecord> {
  const member = await withRecordLock(deps.redis, memberLock(deps, guildId, userId), async () => {
    const guild = await requireGuild(deps, guildId);
    await requireMember(deps, guildId, userId);
    const roles = input.roles === undefined ? undefined : memberRoles(guild, input.roles);
    const updated = await deps.store.members.update(
      guildId,
      userId,
      { roles, nickname: input.nickname },
      deps.now(),
    );
    if (!updated) throw new NotFoundError('guild member');
    return updated;
  });
  await publishDirectoryChange(deps, { kind: 'member', id: userId, guild_id: guildId });
  return member;
}

/** Removes a member; the guild's owner cannot leave (409). */
export async function removeMember(deps: Deps, guildId: string, userId: string): Promise<void> {
  const guild = await requireGuild(deps, guildId);
  if (guild.user_id === userId) {
    throw new HeraldError('CONFLICT', {
      detail: {
        'zh-CN': '服务器所有者不能退出服务器，请先转让服务器',
        'en-US': 'the owner cannot leave the guild; transfer it first',
      },
    });
  }
  const removed = await withRecordLock(deps.redis, memberLock(deps, guildId, userId), () =>
    deps.store.members.remove(guildId, userId),
  );
  if (!removed) throw new NotFoundError('guild member');
  await publishDirectoryChange(deps, { kind: 'member', id: userId, guild_id: guildId });
}

export async function listMembers(
  deps: Deps,
  guildId: string,
  page: PageRequest,
): Promise<Page<MemberRecord>> {
  await requireGuild(deps, guildId);
  return deps.store.members.list(guildId, page);
}
