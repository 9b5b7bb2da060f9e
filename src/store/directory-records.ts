/*
 * The platform directory as the store hands it out: servers (guilds) with their roles, channels,
 * and guild members. Plain objects, ids as `id`; every record carries `updated_at` (ms) so that
 * caches in other processes can tell an old copy from a new one.
 *
 * Permission masks are unsigned bit masks held in JS numbers: every mask is an integer from 0 to
 * 2^53 - 1 (bits 0 to 52), so it is exact as a number and as a BSON double. The bit operations
 * in src/domain/permissions.ts are written for that whole range (not 32-bit `|`/`&`).
 */

/** The id of the everyone role: present in every guild, held by every member implicitly. */
export const EVERYONE_ROLE_ID = 0;

export interface RoleRecord {
  /** 0 is everyone; other roles are positive integers, unique in their guild. */
  readonly role_id: number;
  readonly name: string;
  /** RGB as an integer (0xRRGGBB). */
  readonly color: number;
  readonly position: number;
  /** 0 or 1, as the platform writes it: list members of this role separately. */
  readonly hoist: number;
  /** 0 or 1: the role may be mentioned. */
  readonly mentionable: number;
  /** Permission bit mask (see src/domain/permissions.ts). */
  readonly permissions: number;
}

export interface GuildRecord {
  readonly id: string;
  readonly name: string;
  readonly topic: string;
  /** The owner's user id. */
  readonly user_id: string;
  readonly icon: string;
  /** 0-3: the server's default notification setting. */
  readonly notify_type: number;
  readonly region: string;
  readonly enable_open: boolean;
  /** '' when the server is not public. */
  readonly open_id: string;
  /** '' when none. */
  readonly default_channel_id: string;
  /** '' when none. */
  readonly welcome_channel_id: string;
  /** Always holds role 0 (everyone). */
  readonly roles: readonly RoleRecord[];
  readonly created_at: number;
  readonly updated_at: number;
}

export interface RoleOverwrite {
  readonly role_id: number;
  readonly allow: number;
  readonly deny: number;
}

export interface UserOverwrite {
  readonly user_id: string;
  readonly allow: number;
  readonly deny: number;
}

export interface ChannelRecord {
  readonly id: string;
  readonly guild_id: string;
  readonly name: string;
  /** The creator's user id. */
  readonly user_id: string;
  readonly topic: string;
  /** 1 text, 2 voice. */
  readonly type: number;
  /** Seconds between two messages of one user; 0 is off. */
  readonly slow_mode: number;
  readonly is_category: boolean;
  /** The category channel this channel sits in; '' when none. */
  readonly parent_id: string;
  /** Sort order within the parent. */
  readonly level: number;
  readonly permission_overwrites: readonly RoleOverwrite[];
  /** Stored as user ids; platform views render each as a user object. */
  readonly permission_users: readonly UserOverwrite[];
  /** 0 or 1: the overwrites follow the parent category's (informational; see docs/directory.md). */
  readonly permission_sync: number;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface MemberRecord {
  readonly guild_id: string;
  readonly user_id: string;
  /** The member's nickname in this guild; '' means the user's own nickname. */
  readonly nickname: string;
  /** Role ids held, without 0 (everyone is implicit). */
  readonly roles: readonly number[];
  readonly joined_at: number;
  readonly updated_at: number;
}
