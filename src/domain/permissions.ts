import type { LocalizedText } from '../errors/index.js';
import {
  type ChannelRecord,
  EVERYONE_ROLE_ID,
  type GuildRecord,
  type MemberRecord,
  type RoleRecord,
} from '../store/index.js';

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

/** Who a step of the computation is (the kinds of the operators' "can this bot send here?"). */
export type PermissionStepKind =
  | 'guild_owner'
  | 'not_member'
  | 'everyone'
  | 'role'
  | 'administrator'
  | 'role_overwrite'
  | 'user_overwrite';

/**
 * How a step changes the mask: `union` adds a role's mask to the server permissions, `deny`
 * removes bits, `allow` adds bits, `all` is every bit (owner, administrator), `none` is no bit at
 * all (not a member).
 */
export type PermissionStepOp = 'union' | 'deny' | 'allow' | 'all' | 'none';

/** One step of effectivePermissions, in the order it is applied. */
export interface PermissionStep {
  readonly kind: PermissionStepKind;
  /** The role's id (everyone is 0), or the user's for the owner, non-member and user overwrite. */
  readonly id: number | string;
  /** The role's name; absent for user steps. */
  readonly name?: string;
  readonly op: PermissionStepOp;
  /** The mask the step applies. */
  readonly mask: number;
  /** The user's permissions once the step is applied. */
  readonly after: number;
}

/** Receives each step; the computation allocates nothing for steps when none is given. */
export type PermissionTrace = (step: PermissionStep) => void;

/**
 * What `userId` may do in `channel`, as a mask. Pure. The one computation of permissions: the
 * workers' check and the operators' explanation (explainSendPermission) both run it, the
 * latter with a `trace` that records each step.
 *
 * 1. The guild's owner holds every permission everywhere in the guild (ALL_PERMISSIONS), member
 *    record or not (Herald's rule; the platform does not document one).
 * 2. A non-member, or a channel of another guild, has none (0).
 * 3. Server permissions: the union of the masks of role 0 (everyone) and of the member's roles
 *    that still exist in the guild (a deleted role held by a member counts for nothing). If that
 *    holds administrator, the answer is ALL_PERMISSIONS and no channel overwrite applies.
 * 4. Channel: from the server permissions, remove the `deny` masks of the role overwrites for
 *    roles the member holds (everyone included), then add their `allow` masks; then remove the
 *    user overwrite's `deny` and add its `allow`. Overwrites for roles the member does not hold
 *    are ignored.
 * Channel overwrites never grant or remove administrator: it is decided at server level.
 */
export function effectivePermissions(input: PermissionInput, trace?: PermissionTrace): number {
  const { guild, member, channel, userId } = input;
  if (channel.guild_id === guild.id && guild.user_id === userId) {
    trace?.({ kind: 'guild_owner', id: userId, op: 'all', mask: ALL_PERMISSIONS, after: ALL_PERMISSIONS });
    return ALL_PERMISSIONS;
  }
  if (channel.guild_id !== guild.id || !member || member.user_id !== userId || member.guild_id !== guild.id) {
    trace?.({ kind: 'not_member', id: userId, op: 'none', mask: 0, after: 0 });
    return 0;
  }

  // Roles held: everyone (first, so that a trace names it before the roles), plus the member's
  // roles that still exist in the guild.
  const memberRoles = new Set<number>(member.roles);
  const held = new Set<number>([EVERYONE_ROLE_ID]);
  let server = 0;
  const grant = (role: RoleRecord): void => {
    server = maskOr(server, role.permissions);
    const kind = role.role_id === EVERYONE_ROLE_ID ? 'everyone' : 'role';
    trace?.({ kind, id: role.role_id, name: role.name, op: 'union', mask: role.permissions, after: server });
  };
  const everyone = guild.roles.find((r) => r.role_id === EVERYONE_ROLE_ID);
  if (everyone) grant(everyone);
  for (const role of guild.roles) {
    if (role.role_id === EVERYONE_ROLE_ID || !memberRoles.has(role.role_id)) continue;
    held.add(role.role_id);
    grant(role);
  }
  if (maskAnd(server, PERMISSION.ADMINISTRATOR) !== 0) {
    if (trace) {
      const admin = guild.roles.find(
        (r) => held.has(r.role_id) && maskAnd(r.permissions, PERMISSION.ADMINISTRATOR) !== 0,
      );
      trace({
        kind: 'administrator',
        id: admin?.role_id ?? EVERYONE_ROLE_ID,
        ...(admin ? { name: admin.name } : {}),
        op: 'all',
        mask: ALL_PERMISSIONS,
        after: ALL_PERMISSIONS,
      });
    }
    return ALL_PERMISSIONS;
  }

  // All role denies, then all role allows, then the user's deny and allow. Administrator comes
  // only from roles: an allow of bit 0 is dropped at once (server holds no bit 0 here).
  let perms = server;
  const roleName = (id: number): string | undefined => guild.roles.find((r) => r.role_id === id)?.name;
  for (const o of channel.permission_overwrites) {
    if (!held.has(o.role_id) || o.deny === 0) continue;
    perms = maskAndNot(perms, o.deny);
    trace?.({
      kind: 'role_overwrite',
      id: o.role_id,
      name: roleName(o.role_id),
      op: 'deny',
      mask: o.deny,
      after: perms,
    });
  }
  for (const o of channel.permission_overwrites) {
    if (!held.has(o.role_id) || o.allow === 0) continue;
    perms = maskAndNot(maskOr(perms, o.allow), PERMISSION.ADMINISTRATOR);
    trace?.({
      kind: 'role_overwrite',
      id: o.role_id,
      name: roleName(o.role_id),
      op: 'allow',
      mask: o.allow,
      after: perms,
    });
  }
  const own = channel.permission_users.find((o) => o.user_id === userId);
  if (own && own.deny !== 0) {
    perms = maskAndNot(perms, own.deny);
    trace?.({ kind: 'user_overwrite', id: userId, op: 'deny', mask: own.deny, after: perms });
  }
  if (own && own.allow !== 0) {
    perms = maskAndNot(maskOr(perms, own.allow), PERMISSION.ADMINISTRATOR);
    trace?.({ kind: 'user_overwrite', id: userId, op: 'allow', mask: own.allow, after: perms });
  }
  return perms;
}

// ------------------------------------------------------------- can this user send here?

/** What sending a message in a channel needs, in the order the workers check it. */
export type SendRequirement = 'view_channels' | 'send_messages';

/** The first permission `mask` lacks to send messages (view channels, then send), or null. */
export function missingSendPermission(mask: number): SendRequirement | null {
  if (!hasPermission(mask, PERMISSION.VIEW_CHANNELS)) return 'view_channels';
  if (!hasPermission(mask, PERMISSION.SEND_MESSAGES)) return 'send_messages';
  return null;
}

/**
 * A missing send permission as a delivery failure names it (`{permission}` of
 * DELIVERY_NO_PERMISSION), in the console's words.
 */
export const SEND_REQUIREMENT_NAMES: Readonly<Record<SendRequirement, LocalizedText>> = {
  view_channels: { 'zh-CN': '查看频道', 'en-US': 'view channels' },
  send_messages: { 'zh-CN': '发送消息', 'en-US': 'send messages' },
};

const SEND_BITS: Readonly<Record<SendRequirement, number>> = {
  view_channels: PERMISSION.VIEW_CHANNELS,
  send_messages: PERMISSION.SEND_MESSAGES,
};
const ANY_SEND_BIT = PERMISSION.VIEW_CHANNELS | PERMISSION.SEND_MESSAGES;

/** What a step does to the question "may this user send here?". */
export type SendEffect = 'allow' | 'deny' | 'none';

/** A step as the operators see it: `permissions` is the mask it applies, `after` the result. */
export interface ExplainedStep {
  readonly kind: PermissionStepKind;
  readonly id: number | string;
  readonly name?: string;
  readonly op: PermissionStepOp;
  readonly effect: SendEffect;
  readonly permissions: number;
  readonly after: number;
}

/** The step (or, when no step names a needed bit, the everyone role) that settles the answer. */
export interface SendDecider {
  readonly kind: PermissionStepKind;
  readonly id?: number | string;
  readonly name?: string;
}

export interface SendExplanation {
  readonly allowed: boolean;
  /** The permission that is missing (the first, as the workers check them), or null. */
  readonly missing: SendRequirement | null;
  readonly decided_by: SendDecider;
  /** The effective mask, as effectivePermissions answers it. */
  readonly permissions: number;
  readonly steps: readonly ExplainedStep[];
}

function effectOf(step: PermissionStep): SendEffect {
  switch (step.op) {
    case 'all':
      return 'allow';
    case 'none':
      return 'deny';
    case 'deny':
      return maskAnd(step.mask, ANY_SEND_BIT) !== 0 ? 'deny' : 'none';
    case 'allow':
      return maskAnd(step.mask, ANY_SEND_BIT) !== 0 ? 'allow' : 'none';
    case 'union':
      return maskAnd(step.mask, ANY_SEND_BIT | PERMISSION.ADMINISTRATOR) !== 0 ? 'allow' : 'none';
  }
}

/**
 * Index of the step that settles `bit`: the latest deny or allow naming it (the first of a run
 * of the same kind and op: any of them alone would do), else the first role granting it
 * (everyone comes first); -1 when no step names it.
 */
function settlingStep(steps: readonly PermissionStep[], bit: number): number {
  let at = -1;
  steps.forEach((s, i) => {
    if (maskAnd(s.mask, bit) === 0) return;
    const prev = steps[at];
    if (s.op === 'union') {
      if (at < 0) at = i;
    } else if (!prev || prev.op === 'union' || prev.kind !== s.kind || prev.op !== s.op) {
      at = i;
    }
  });
  return at;
}

const deciderOf = (s: PermissionStep): SendDecider => ({
  kind: s.kind,
  id: s.id,
  ...(s.name !== undefined ? { name: s.name } : {}),
});

/**
 * Whether `userId` may send messages in `channel` (view channels and send messages, as the
 * workers require), with the steps of effectivePermissions and the one that decides: the owner,
 * not a member, administrator; else for a missing permission the step that settles it, and when
 * both are held the later of the two settling steps (the most specific). A permission no step
 * grants is decided by the everyone role, which lacks it.
 */
export function explainSendPermission(input: PermissionInput): SendExplanation {
  const steps: PermissionStep[] = [];
  const permissions = effectivePermissions(input, (s) => steps.push(s));
  const missing = missingSendPermission(permissions);
  const whole = steps.find((s) => s.op === 'all' || s.op === 'none');
  let decided: SendDecider;
  if (whole) {
    decided = deciderOf(whole);
  } else {
    const view = settlingStep(steps, SEND_BITS.view_channels);
    const send = settlingStep(steps, SEND_BITS.send_messages);
    const at = missing === null ? Math.max(view, send) : missing === 'view_channels' ? view : send;
    const step = steps[at];
    const everyone = input.guild.roles.find((r) => r.role_id === EVERYONE_ROLE_ID);
    decided = step
      ? deciderOf(step)
      : { kind: 'everyone', id: EVERYONE_ROLE_ID, ...(everyone ? { name: everyone.name } : {}) };
  }
  return {
    allowed: missing === null,
    missing,
    decided_by: decided,
    permissions,
    steps: steps.map((s) => ({
      kind: s.kind,
      id: s.id,
      ...(s.name !== undefined ? { name: s.name } : {}),
      op: s.op,
      effect: effectOf(s),
      permissions: s.mask,
      after: s.after,
    })),
  };
}
