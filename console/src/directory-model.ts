import type { ChannelView, RoleView } from './ops-types.ts';
import type { OverwriteMasks } from './permissions.ts';

/*
 * Pure helpers of the directory screens: the bodies of guild/update (roles) and channel/update
 * (overwrites) built from what the server last answered, so each save changes only what the
 * operator acted on (docs/directory.md: `roles` is the whole list; an overwrite list replaces
 * the stored one).
 */

export const EVERYONE_ROLE_ID = 0;

/** A role as guild/update takes it: the id keeps an existing role; fields left out are kept. */
export interface RoleBody {
  role_id?: number;
  name?: string;
  permissions?: number;
}

export type RoleChange =
  | { kind: 'update'; role_id: number; name: string; permissions: number }
  | { kind: 'add'; name: string; permissions: number }
  | { kind: 'remove'; role_id: number };

/**
 * The whole role list for guild/update after one change to `stored`. Existing roles are sent
 * by id only (the server keeps their fields); role 0 cannot be removed.
 */
export function rolesBody(stored: readonly RoleView[], change: RoleChange): RoleBody[] {
  const out: RoleBody[] = [];
  for (const r of stored) {
    if (change.kind === 'remove' && change.role_id === r.role_id && r.role_id !== EVERYONE_ROLE_ID) continue;
    if (change.kind === 'update' && change.role_id === r.role_id) {
      out.push({ role_id: r.role_id, name: change.name, permissions: change.permissions });
    } else {
      out.push({ role_id: r.role_id });
    }
  }
  if (change.kind === 'add') out.push({ name: change.name, permissions: change.permissions });
  return out;
}

/** A role's name for people: the everyone role's stored name is a platform constant. */
export const roleLabel = (roles: readonly RoleView[], id: number): string =>
  roles.find((r) => r.role_id === id)?.name ?? `#${id}`;

export type OverwriteTarget =
  | { kind: 'role'; role_id: number }
  | { kind: 'user'; user_id: string; name: string };

export interface OverwriteDraft extends OverwriteMasks {
  target: OverwriteTarget;
}

export const targetKey = (t: OverwriteTarget): string =>
  t.kind === 'role' ? `role:${t.role_id}` : `user:${t.user_id}`;

/** The channel's overwrites as the editor holds them: role overwrites first, then users. */
export function channelOverwrites(channel: ChannelView): OverwriteDraft[] {
  return [
    ...channel.permission_overwrites.map((o) => ({
      target: { kind: 'role' as const, role_id: o.role_id },
      allow: o.allow,
      deny: o.deny,
    })),
    ...channel.permission_users.map((o) => ({
      target: {
        kind: 'user' as const,
        user_id: o.user.id,
        name: o.user.nickname || o.user.username,
      },
      allow: o.allow,
      deny: o.deny,
    })),
  ];
}

export interface OverwritesBody {
  permission_overwrites: { role_id: number; allow: number; deny: number }[];
  permission_users: { user_id: string; allow: number; deny: number }[];
}

/** channel/update's two lists from the editor's rows (each target once: the first row wins). */
export function overwritesBody(drafts: readonly OverwriteDraft[]): OverwritesBody {
  const seen = new Set<string>();
  const body: OverwritesBody = { permission_overwrites: [], permission_users: [] };
  for (const d of drafts) {
    const key = targetKey(d.target);
    if (seen.has(key)) continue;
    seen.add(key);
    if (d.target.kind === 'role') {
      body.permission_overwrites.push({ role_id: d.target.role_id, allow: d.allow, deny: d.deny });
    } else {
      body.permission_users.push({ user_id: d.target.user_id, allow: d.allow, deny: d.deny });
    }
  }
  return body;
}

/** Whether the editor's rows differ from the channel's stored overwrites. */
export function overwritesChanged(channel: ChannelView, drafts: readonly OverwriteDraft[]): boolean {
  return (
    JSON.stringify(overwritesBody(channelOverwrites(channel))) !== JSON.stringify(overwritesBody(drafts))
  );
}

/** The role ids a member holds besides everyone, from checkboxes over the guild's roles. */
export function toggleRole(roles: readonly number[], roleId: number, on: boolean): number[] {
  const set = new Set(roles.filter((r) => r !== EVERYONE_ROLE_ID));
  if (on) set.add(roleId);
  else set.delete(roleId);
  return [...set].sort((a, b) => a - b);
}
