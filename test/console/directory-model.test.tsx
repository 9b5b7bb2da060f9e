import { describe, expect, it } from 'vitest';
import {
  channelOverwrites,
  overwritesBody,
  overwritesChanged,
  rolesBody,
  toggleRole,
} from '../../console/src/directory-model.ts';
import type { ChannelView, RoleView } from '../../console/src/ops-types.ts';

const role = (role_id: number, name: string, permissions: number): RoleView => ({
  role_id,
  name,
  permissions,
  color: 0,
  position: role_id,
  hoist: 0,
  mentionable: 0,
});
const roles = [role(0, '@全体成员', 6144), role(1, 'bots', 4096), role(2, 'mods', 131072)];

const user = (id: string, username: string) => ({
  id,
  username,
  nickname: '',
  identify_num: '0001',
  online: false,
  bot: false,
  status: 0,
  avatar: '',
});

const channel: ChannelView = {
  id: '7',
  name: 'general',
  user_id: '1',
  guild_id: '3',
  topic: '',
  is_category: false,
  parent_id: '',
  level: 0,
  slow_mode: 0,
  type: 1,
  permission_overwrites: [
    { role_id: 0, allow: 0, deny: 4096 },
    { role_id: 1, allow: 4096, deny: 0 },
  ],
  permission_users: [{ user: user('10001', 'alice'), allow: 131072, deny: 0 }],
  permission_sync: 0,
};

describe('directory bodies', () => {
  it('sends the whole role list with one change, existing roles by id only', () => {
    expect(rolesBody(roles, { kind: 'update', role_id: 1, name: 'robots', permissions: 6144 })).toEqual([
      { role_id: 0 },
      { role_id: 1, name: 'robots', permissions: 6144 },
      { role_id: 2 },
    ]);
    expect(rolesBody(roles, { kind: 'add', name: 'new', permissions: 1 })).toEqual([
      { role_id: 0 },
      { role_id: 1 },
      { role_id: 2 },
      { name: 'new', permissions: 1 },
    ]);
    expect(rolesBody(roles, { kind: 'remove', role_id: 2 })).toEqual([{ role_id: 0 }, { role_id: 1 }]);
    // The everyone role is never removed.
    expect(rolesBody(roles, { kind: 'remove', role_id: 0 })).toHaveLength(3);
  });

  it("turns a channel's overwrites into editor rows and back unchanged", () => {
    const rows = channelOverwrites(channel);
    expect(rows.map((r) => r.target)).toEqual([
      { kind: 'role', role_id: 0 },
      { kind: 'role', role_id: 1 },
      { kind: 'user', user_id: '10001', name: 'alice' },
    ]);
    expect(overwritesBody(rows)).toEqual({
      permission_overwrites: [
        { role_id: 0, allow: 0, deny: 4096 },
        { role_id: 1, allow: 4096, deny: 0 },
      ],
      permission_users: [{ user_id: '10001', allow: 131072, deny: 0 }],
    });
    expect(overwritesChanged(channel, rows)).toBe(false);
  });

  it('notices a changed, removed or added overwrite', () => {
    const rows = channelOverwrites(channel);
    expect(overwritesChanged(channel, rows.slice(1))).toBe(true);
    expect(overwritesChanged(channel, [{ ...rows[0]!, deny: 0 }, ...rows.slice(1)])).toBe(true);
    const added = [...rows, { target: { kind: 'role' as const, role_id: 2 }, allow: 0, deny: 0 }];
    expect(overwritesChanged(channel, added)).toBe(true);
    expect(overwritesBody(added).permission_overwrites).toHaveLength(3);
  });

  it('keeps one row per target', () => {
    const rows = channelOverwrites(channel);
    const twice = [...rows, { ...rows[0]!, allow: 1 }];
    expect(overwritesBody(twice).permission_overwrites[0]).toEqual({ role_id: 0, allow: 0, deny: 4096 });
  });

  it("edits a member's roles as a sorted set without the everyone role", () => {
    expect(toggleRole([2], 1, true)).toEqual([1, 2]);
    expect(toggleRole([1, 2], 1, false)).toEqual([2]);
    expect(toggleRole([0, 2], 2, true)).toEqual([2]);
  });
});
