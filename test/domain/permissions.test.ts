import { describe, expect, it } from 'vitest';
import {
  ALL_PERMISSIONS,
  DEFAULT_EVERYONE_PERMISSIONS,
  effectivePermissions,
  explainSendPermission,
  hasPermission,
  maskAnd,
  maskAndNot,
  maskOr,
  missingSendPermission,
  PERMISSION,
  type PermissionStep,
} from '../../src/domain/permissions.js';
import type {
  ChannelRecord,
  GuildRecord,
  MemberRecord,
  RoleOverwrite,
  RoleRecord,
  UserOverwrite,
} from '../../src/store/index.js';

const {
  ADMINISTRATOR: ADMIN,
  VIEW_CHANNELS: VIEW,
  SEND_MESSAGES: SEND,
  MENTION_EVERYONE: MENTION,
} = PERMISSION;
const HIGH = 2 ** 40; // a bit far above 32 bits: the mask helpers must keep it

const OWNER = 'owner-1';
const USER = 'user-1';

const role = (role_id: number, permissions: number): RoleRecord => ({
  role_id,
  name: `r${role_id}`,
  color: 0,
  position: role_id,
  hoist: 0,
  mentionable: 0,
  permissions,
});

function guild(everyone: number, roles: RoleRecord[] = []): GuildRecord {
  return {
    id: 'g1',
    name: 'g',
    topic: '',
    user_id: OWNER,
    icon: '',
    notify_type: 0,
    region: '',
    enable_open: false,
    open_id: '',
    default_channel_id: '',
    welcome_channel_id: '',
    roles: [role(0, everyone), ...roles],
    created_at: 0,
    updated_at: 0,
  };
}

function channel(ow: RoleOverwrite[] = [], users: UserOverwrite[] = [], guildId = 'g1'): ChannelRecord {
  return {
    id: 'c1',
    guild_id: guildId,
    name: 'c',
    user_id: OWNER,
    topic: '',
    type: 1,
    slow_mode: 0,
    is_category: false,
    parent_id: '',
    level: 0,
    permission_overwrites: ow,
    permission_users: users,
    permission_sync: 0,
    created_at: 0,
    updated_at: 0,
  };
}

const member = (roles: number[], userId = USER): MemberRecord => ({
  guild_id: 'g1',
  user_id: userId,
  nickname: '',
  roles,
  joined_at: 0,
  updated_at: 0,
});

const ow = (role_id: number, allow: number, deny: number): RoleOverwrite => ({ role_id, allow, deny });
const uow = (user_id: string, allow: number, deny: number): UserOverwrite => ({ user_id, allow, deny });

interface Row {
  name: string;
  guild: GuildRecord;
  member: MemberRecord | null;
  channel: ChannelRecord;
  userId?: string;
  expected: number;
}

const rows: Row[] = [
  {
    name: 'everyone only: the everyone mask',
    guild: guild(VIEW | SEND),
    member: member([]),
    channel: channel(),
    expected: VIEW | SEND,
  },
  {
    name: 'roles are a union with everyone',
    guild: guild(VIEW, [role(1, SEND), role(2, MENTION)]),
    member: member([1, 2]),
    channel: channel(),
    expected: VIEW | SEND | MENTION,
  },
  {
    name: 'a role the member lacks adds nothing',
    guild: guild(VIEW, [role(1, SEND)]),
    member: member([]),
    channel: channel(),
    expected: VIEW,
  },
  {
    name: 'administrator via a role yields all bits',
    guild: guild(VIEW, [role(1, ADMIN)]),
    member: member([1]),
    channel: channel(),
    expected: ALL_PERMISSIONS,
  },
  {
    name: 'administrator bypasses channel denies (role and user)',
    guild: guild(VIEW, [role(1, ADMIN)]),
    member: member([1]),
    channel: channel([ow(0, 0, VIEW | SEND), ow(1, 0, ADMIN | SEND)], [uow(USER, 0, ALL_PERMISSIONS)]),
    expected: ALL_PERMISSIONS,
  },
  {
    name: 'administrator on everyone makes every member admin',
    guild: guild(ADMIN),
    member: member([]),
    channel: channel([ow(0, 0, SEND)]),
    expected: ALL_PERMISSIONS,
  },
  {
    name: 'everyone deny removes the bit',
    guild: guild(VIEW | SEND),
    member: member([]),
    channel: channel([ow(0, 0, SEND)]),
    expected: VIEW,
  },
  {
    name: 'everyone deny + role allow: the allow wins',
    guild: guild(VIEW | SEND, [role(1, 0)]),
    member: member([1]),
    channel: channel([ow(0, 0, SEND), ow(1, SEND, 0)]),
    expected: VIEW | SEND,
  },
  {
    name: 'role deny + other role allow of the same bit: allows are applied after all denies',
    guild: guild(VIEW, [role(1, SEND), role(2, 0)]),
    member: member([1, 2]),
    channel: channel([ow(1, 0, SEND), ow(2, SEND, 0)]),
    expected: VIEW | SEND,
  },
  {
    name: 'role deny without any allow removes the bit the role gave',
    guild: guild(VIEW, [role(1, SEND)]),
    member: member([1]),
    channel: channel([ow(1, 0, SEND)]),
    expected: VIEW,
  },
  {
    name: 'overwrite for a role the member lacks is ignored',
    guild: guild(VIEW, [role(1, 0), role(2, 0)]),
    member: member([1]),
    channel: channel([ow(2, SEND, VIEW)]),
    expected: VIEW,
  },
  {
    name: 'user deny beats role allow',
    guild: guild(VIEW, [role(1, 0)]),
    member: member([1]),
    channel: channel([ow(1, SEND, 0)], [uow(USER, 0, SEND)]),
    expected: VIEW,
  },
  {
    name: 'user allow beats role deny',
    guild: guild(VIEW | SEND, [role(1, 0)]),
    member: member([1]),
    channel: channel([ow(0, 0, SEND), ow(1, 0, SEND)], [uow(USER, SEND, 0)]),
    expected: VIEW | SEND,
  },
  {
    name: 'user overwrite: allow wins over deny of the same bit in one overwrite',
    guild: guild(VIEW),
    member: member([]),
    channel: channel([], [uow(USER, SEND, SEND)]),
    expected: VIEW | SEND,
  },
  {
    name: "another user's overwrite is ignored",
    guild: guild(VIEW | SEND),
    member: member([]),
    channel: channel([], [uow('someone-else', 0, SEND)]),
    expected: VIEW | SEND,
  },
  {
    name: 'non-member has none, even with everyone allows',
    guild: guild(VIEW | SEND),
    member: null,
    channel: channel([ow(0, MENTION, 0)], [uow(USER, SEND, 0)]),
    expected: 0,
  },
  {
    name: 'a membership record of another user counts as none',
    guild: guild(VIEW | SEND),
    member: member([], 'other-user'),
    channel: channel(),
    expected: 0,
  },
  {
    name: 'owner holds every permission despite denies, without a member record',
    guild: guild(0),
    member: null,
    channel: channel([ow(0, 0, ALL_PERMISSIONS)], [uow(OWNER, 0, ALL_PERMISSIONS)]),
    userId: OWNER,
    expected: ALL_PERMISSIONS,
  },
  {
    name: 'channel allow of administrator does not make an administrator',
    guild: guild(VIEW),
    member: member([]),
    channel: channel([ow(0, ADMIN, 0)], [uow(USER, ADMIN, 0)]),
    expected: VIEW,
  },
  {
    name: 'a deleted role still listed on the member counts for nothing, nor its overwrite',
    guild: guild(VIEW),
    member: member([7]),
    channel: channel([ow(7, SEND, 0)]),
    expected: VIEW,
  },
  {
    name: 'a channel of another guild: none',
    guild: guild(VIEW | SEND),
    member: member([]),
    channel: channel([], [], 'g2'),
    expected: 0,
  },
  {
    name: 'bits above 2^32 survive union, deny and allow',
    guild: guild(VIEW | HIGH, [role(1, 2 ** 50)]),
    member: member([1]),
    channel: channel([ow(0, 2 ** 45, HIGH)], [uow(USER, HIGH, 2 ** 50)]),
    expected: VIEW + HIGH + 2 ** 45,
  },
  {
    name: 'empty everyone mask and no roles: nothing',
    guild: guild(0),
    member: member([]),
    channel: channel(),
    expected: 0,
  },
];

describe('effectivePermissions', () => {
  it('has at least 15 cases', () => expect(rows.length).toBeGreaterThanOrEqual(15));

  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, r) => {
    const got = effectivePermissions({
      guild: r.guild,
      member: r.member,
      channel: r.channel,
      userId: r.userId ?? USER,
    });
    expect(got).toBe(r.expected);
  });
});

describe('hasPermission and the mask helpers', () => {
  it.each([
    [VIEW | SEND, SEND, true],
    [VIEW, SEND, false],
    [ADMIN, SEND, true],
    [ADMIN, MENTION, true],
    [0, SEND, false],
    [VIEW | SEND, VIEW | SEND, true],
    [VIEW, VIEW | SEND, false],
    [HIGH + VIEW, HIGH, true],
    [ALL_PERMISSIONS, 2 ** 52, true],
  ])('hasPermission(%d, %d) is %s', (mask, bit, expected) => {
    expect(hasPermission(mask, bit)).toBe(expected);
  });

  it('works over 53 bits where 32-bit operators would not', () => {
    const a = 2 ** 52 + 2 ** 31 + 1;
    const b = 2 ** 40 + 2 ** 31;
    expect(maskOr(a, b)).toBe(2 ** 52 + 2 ** 40 + 2 ** 31 + 1);
    expect(maskAnd(a, b)).toBe(2 ** 31);
    expect(maskAndNot(a, b)).toBe(2 ** 52 + 1);
    expect(maskAndNot(ALL_PERMISSIONS, 1)).toBe(ALL_PERMISSIONS - 1);
  });

  it('the default everyone mask is view channels + send messages', () => {
    expect(DEFAULT_EVERYONE_PERMISSIONS).toBe(2048 + 4096);
  });
});

describe('effectivePermissions with a trace', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s: same answer, the last step ends on it', (_name, r) => {
    const input = { guild: r.guild, member: r.member, channel: r.channel, userId: r.userId ?? USER };
    const steps: PermissionStep[] = [];
    const got = effectivePermissions(input, (s) => steps.push(s));
    expect(got).toBe(r.expected);
    expect(steps.at(-1)?.after ?? 0).toBe(r.expected);
    expect(explainSendPermission(input).permissions).toBe(r.expected);
  });
});

describe('missingSendPermission (what the workers require)', () => {
  it.each([
    [VIEW | SEND, null],
    [SEND, 'view_channels'],
    [VIEW, 'send_messages'],
    [0, 'view_channels'],
    [ADMIN, null],
    [ALL_PERMISSIONS, null],
  ] as const)('mask %d lacks %s', (mask, expected) => {
    expect(missingSendPermission(mask)).toBe(expected);
  });
});

describe('explainSendPermission', () => {
  const explain = (g: GuildRecord, m: MemberRecord | null, c: ChannelRecord, userId = USER) =>
    explainSendPermission({ guild: g, member: m, channel: c, userId });
  /** Steps as [kind, id, op, effect] for compact comparison. */
  const brief = (e: ReturnType<typeof explain>) => e.steps.map((s) => [s.kind, s.id, s.op, s.effect]);

  it('the owner: every bit, whatever the overwrites, without a member record', () => {
    const e = explain(guild(0), null, channel([ow(0, 0, ALL_PERMISSIONS)]), OWNER);
    expect(e).toMatchObject({ allowed: true, missing: null, decided_by: { kind: 'guild_owner', id: OWNER } });
    expect(e.steps).toEqual([
      {
        kind: 'guild_owner',
        id: OWNER,
        op: 'all',
        effect: 'allow',
        permissions: ALL_PERMISSIONS,
        after: ALL_PERMISSIONS,
      },
    ]);
  });

  it('an administrator role: decided by that role; channel denies are not steps', () => {
    const e = explain(
      guild(0, [role(1, MENTION), role(2, ADMIN)]),
      member([1, 2]),
      channel([ow(0, 0, VIEW | SEND)]),
    );
    expect(e).toMatchObject({
      allowed: true,
      permissions: ALL_PERMISSIONS,
      decided_by: { kind: 'administrator', id: 2, name: 'r2' },
    });
    expect(brief(e)).toEqual([
      ['everyone', 0, 'union', 'none'],
      ['role', 1, 'union', 'none'],
      ['role', 2, 'union', 'allow'],
      ['administrator', 2, 'all', 'allow'],
    ]);
  });

  it('administrator on the everyone role: decided by administrator, role 0', () => {
    const e = explain(guild(ADMIN), member([]), channel([ow(0, 0, SEND)]));
    expect(e.decided_by).toEqual({ kind: 'administrator', id: 0, name: 'r0' });
    expect(e.allowed).toBe(true);
  });

  it('a role granting send (everyone views only): decided by the role', () => {
    const e = explain(guild(VIEW, [role(1, SEND)]), member([1]), channel());
    expect(e).toMatchObject({ allowed: true, decided_by: { kind: 'role', id: 1, name: 'r1' } });
    expect(e.steps).toEqual([
      { kind: 'everyone', id: 0, name: 'r0', op: 'union', effect: 'allow', permissions: VIEW, after: VIEW },
      {
        kind: 'role',
        id: 1,
        name: 'r1',
        op: 'union',
        effect: 'allow',
        permissions: SEND,
        after: VIEW | SEND,
      },
    ]);
  });

  it('everyone only: decided by the everyone role', () => {
    const e = explain(guild(VIEW | SEND, [role(1, SEND)]), member([]), channel());
    expect(e).toMatchObject({ allowed: true, decided_by: { kind: 'everyone', id: 0, name: 'r0' } });
    expect(brief(e)).toEqual([['everyone', 0, 'union', 'allow']]);
  });

  it('a role holding send that everyone also holds: everyone decides', () => {
    const e = explain(guild(VIEW | SEND, [role(1, SEND)]), member([1]), channel());
    expect(e.decided_by).toEqual({ kind: 'everyone', id: 0, name: 'r0' });
  });

  it('a channel role overwrite denying send: decided by that overwrite', () => {
    const e = explain(guild(VIEW | SEND, [role(1, MENTION)]), member([1]), channel([ow(1, 0, SEND)]));
    expect(e).toMatchObject({
      allowed: false,
      missing: 'send_messages',
      permissions: VIEW | MENTION,
      decided_by: { kind: 'role_overwrite', id: 1, name: 'r1' },
    });
    expect(e.steps.at(-1)).toEqual({
      kind: 'role_overwrite',
      id: 1,
      name: 'r1',
      op: 'deny',
      effect: 'deny',
      permissions: SEND,
      after: VIEW | MENTION,
    });
  });

  it('a user overwrite allowing send back: decided by the user overwrite', () => {
    const e = explain(guild(VIEW | SEND), member([]), channel([ow(0, 0, SEND)], [uow(USER, SEND, 0)]));
    expect(e).toMatchObject({ allowed: true, decided_by: { kind: 'user_overwrite', id: USER } });
    expect(brief(e)).toEqual([
      ['everyone', 0, 'union', 'allow'],
      ['role_overwrite', 0, 'deny', 'deny'],
      ['user_overwrite', USER, 'allow', 'allow'],
    ]);
  });

  it('a user overwrite denying what a role overwrite allows: the user overwrite decides', () => {
    const e = explain(
      guild(VIEW, [role(1, 0)]),
      member([1]),
      channel([ow(1, SEND, 0)], [uow(USER, 0, SEND)]),
    );
    expect(e).toMatchObject({ allowed: false, decided_by: { kind: 'user_overwrite', id: USER } });
    expect(brief(e).at(-1)).toEqual(['user_overwrite', USER, 'deny', 'deny']);
  });

  it('a role overwrite allow after an everyone deny: the allow decides (allows come after all denies)', () => {
    const e = explain(
      guild(VIEW | SEND, [role(1, 0), role(2, 0)]),
      member([1, 2]),
      channel([ow(2, SEND, 0), ow(0, 0, SEND), ow(1, SEND, 0)]),
    );
    expect(e).toMatchObject({ allowed: true, decided_by: { kind: 'role_overwrite', id: 2, name: 'r2' } });
    expect(brief(e)).toEqual([
      ['everyone', 0, 'union', 'allow'],
      ['role', 1, 'union', 'none'],
      ['role', 2, 'union', 'none'],
      ['role_overwrite', 0, 'deny', 'deny'],
      ['role_overwrite', 2, 'allow', 'allow'],
      ['role_overwrite', 1, 'allow', 'allow'],
    ]);
  });

  it('view denied while send is held: the view deny decides (view is checked first)', () => {
    const e = explain(guild(VIEW | SEND, [role(1, 0)]), member([1]), channel([ow(1, 0, VIEW)]));
    expect(e).toMatchObject({
      allowed: false,
      missing: 'view_channels',
      decided_by: { kind: 'role_overwrite', id: 1 },
    });
  });

  it('no step grants send: decided by the everyone role, which lacks it', () => {
    const e = explain(guild(VIEW, [role(1, MENTION)]), member([1]), channel([ow(0, MENTION, 0)]));
    expect(e).toMatchObject({
      allowed: false,
      missing: 'send_messages',
      decided_by: { kind: 'everyone', id: 0, name: 'r0' },
    });
    expect(brief(e)).toEqual([
      ['everyone', 0, 'union', 'allow'],
      ['role', 1, 'union', 'none'],
      ['role_overwrite', 0, 'allow', 'none'],
    ]);
  });

  it('not a member: decided by not_member, whatever everyone and the overwrites allow', () => {
    const e = explain(guild(VIEW | SEND), null, channel([], [uow(USER, SEND | VIEW, 0)]));
    expect(e).toEqual({
      allowed: false,
      missing: 'view_channels',
      permissions: 0,
      decided_by: { kind: 'not_member', id: USER },
      steps: [{ kind: 'not_member', id: USER, op: 'none', effect: 'deny', permissions: 0, after: 0 }],
    });
  });

  it('an overwrite allowing administrator: the step shows the bit dropped', () => {
    const e = explain(guild(VIEW | SEND), member([]), channel([], [uow(USER, ADMIN, 0)]));
    expect(e.steps.at(-1)).toMatchObject({
      op: 'allow',
      effect: 'none',
      permissions: ADMIN,
      after: VIEW | SEND,
    });
    expect(e.decided_by.kind).toBe('everyone');
  });

  it("allowed always equals the workers' requirement on the same mask", () => {
    for (const r of rows) {
      const e = explain(r.guild, r.member, r.channel, r.userId ?? USER);
      expect(e.allowed).toBe(missingSendPermission(r.expected) === null);
    }
  });
});
