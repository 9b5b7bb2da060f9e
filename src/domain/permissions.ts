import { type ChannelRecord, EVERYONE_ROLE_ID, type GuildRecord, type MemberRecord } from '../store/index.js';

/*
 * Effective permissions of a user in a channel (platform-facts.md, "Permissions").
 *
 * Masks are unsigned integers from 0 to 2^53 - 1 held in JS numbers (bits 0 to 52 are exact).
 * JS's `|`, `&` and `~` work on 32-bit signed integers and would corrupt bit 31 and above, so
 * the helpers below split a mask into its high and low 32-bit halves. The platform's documented
 * bits are all below 2^18, and the admin API refuses masks above 2^53 - 1.
 */

export const PERMISSION = {
  ADMINISTRATOR: 1,
  VIEW_CHANNELS: 2048,
  SEND_MESSAGES: 4096,
  MENTION_EVERYONE: 131072,
} as const;

/** Every bit Herald can represent (bits 0 to 52): what an administrator or the owner holds. */
export const ALL_PERMISSIONS = Number.MAX_SAFE_INTEGER;

/** The everyone role's mask when a guild is created without one: view channels + send messages. */
export const DEFAULT_EVERYONE_PERMISSIONS = PERMISSION.VIEW_CHANNELS | PERMISSION.SEND_MESSAGES;

const TWO_32 = 2 ** 32;
const hi = (m: number): number => Math.floor(m / TWO_32) >>> 0;
const lo = (m: number): number => m >>> 0;
const join = (h: number, l: number): number => (h >>> 0) * TWO_32 + (l >>> 0);

/** a | b over 53 bits. */
export const maskOr = (a: number, b: number): number => join(hi(a) | hi(b), lo(a) | lo(b));
/** a & b over 53 bits. */
export const maskAnd = (a: number, b: number): number => join(hi(a) & hi(b), lo(a) & lo(b));
/** a & ~b over 53 bits. */
export const maskAndNot = (a: number, b: number): number => join(hi(a) & ~hi(b), lo(a) & ~lo(b));

/** Whether `mask` grants every bit of `bit`; administrator counts as every bit. */
export function hasPermission(mask: number, bit: number): boolean {
  if (maskAnd(mask, PERMISSION.ADMINISTRATOR) !== 0) return true;
  return maskAnd(mask, bit) === bit;
}

export interface PermissionInput {
  readonly guild: GuildRecord;
  /** The user's membership of `guild`; null when the user is not a member. */
  readonly member: MemberRecord | null;
  readonly channel: ChannelRecord;
  readonly userId: string;
}

/**
 * What `userId` may do in `channel`, as a mask. Pure.
 *
 * 1. The guild's owner holds every permission everywhere in the guild (ALL_PERMISSIONS), member
 *    record or not (Herald's rule; the platform does not document one).
 * 2. A non-member, or a channel of another guild, has none (0).
 * 3. Server permissions: the union of the masks of role 0 (everyone) and of the member's roles
 *    that still exist in the guild (a deleted role held by a member counts for nothing). If that holds administrator, the answer is ALL_PERMISSIONS
 *    and no channel overwrite applies.
 * 4. Channel: from the server permissions, remove the union of the `deny` masks of the role
 *    overwrites for roles the member holds (everyone included), then add the union of their
 *    `allow` masks; then remove the user overwrite's `deny` and add its `allow`.
 *    Overwrites for roles the member does not hold are ignored.
 * Channel overwrites never grant or remove administrator: it is decided at server level.
 */
export function effectivePermissions(input: PermissionInput): number {
  const { guild, member, channel, userId } = input;
  if (channel.guild_id !== guild.id) return 0;
  if (guild.user_id === userId) return ALL_PERMISSIONS;
  if (!member || member.user_id !== userId || member.guild_id !== guild.id) return 0;

  // Roles held: everyone, plus the member's roles that still exist in the guild.
  const memberRoles = new Set<number>(member.roles);
  const held = new Set<number>();
  let server = 0;
  for (const role of guild.roles) {
    if (role.role_id !== EVERYONE_ROLE_ID && !memberRoles.has(role.role_id)) continue;
    held.add(role.role_id);
    server = maskOr(server, role.permissions);
  }
  held.add(EVERYONE_ROLE_ID);
  if (maskAnd(server, PERMISSION.ADMINISTRATOR) !== 0) return ALL_PERMISSIONS;

  let allow = 0;
  let deny = 0;
  for (const o of channel.permission_overwrites) {
    if (!held.has(o.role_id)) continue;
    allow = maskOr(allow, o.allow);
    deny = maskOr(deny, o.deny);
  }
  let perms = maskOr(maskAndNot(server, deny), allow);
  const own = channel.permission_users.find((o) => o.user_id === userId);
  if (own) perms = maskOr(maskAndNot(perms, own.deny), own.allow);
  // Administrator comes only from roles: an overwrite that allows bit 0 does not bypass anything.
  return maskAndNot(perms, PERMISSION.ADMINISTRATOR);
}
