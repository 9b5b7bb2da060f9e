import { randomInt } from 'node:crypto';
import type { Role } from '../../src/render/index.js';
import { setUpRequest, type TestApp } from './test-app.js';

/*
 * Directory fixtures through the admin API (docs/directory.md), for any test that needs a guild,
 * a channel, or a bot that has joined one. Each helper throws with the response text on failure.
 */

type Obj = Record<string, unknown>;

/** A role as the platform (and the templates) see it. */
export type TestRole = Role;

export interface TestGuild extends Obj {
  id: string;
  user_id: string;
  roles: TestRole[];
  channels: TestChannel[];
}

export interface TestChannel extends Obj {
  id: string;
  guild_id: string;
  type: number;
}

export interface TestMember extends Obj {
  guild_id: string;
  user_id: string;
  roles: number[];
}

async function post<T>(app: TestApp, path: string, json: Obj): Promise<T> {
  const r = await setUpRequest(() => app.request<T>('POST', path, { admin: true, json }));
  if (r.status !== 200) throw new Error(`${path} failed: ${r.status} ${r.text}`);
  return r.body.data;
}

/** A fresh numeric user id. */
export const testUserId = (): string => `${Date.now()}${randomInt(0, 1_000_000).toString().padStart(6, '0')}`;

/** Creates (or changes) a user; `id` defaults to a fresh one. */
export async function upsertTestUser(app: TestApp, body: Obj = {}): Promise<Obj & { id: string }> {
  const id = (body.id as string | undefined) ?? testUserId();
  const data = await post<{ user: Obj & { id: string } }>(app, '/admin/api/user/upsert', {
    username: `user ${id}`,
    ...body,
    id,
  });
  return data.user;
}

/**
 * Creates a guild. Without `user_id` a fresh owner user is created first. `roles` are the
 * guild's roles besides everyone (role ids are assigned 1, 2, ... when not given);
 * `everyone_permissions` sets role 0's mask (default: view channels + send messages).
 */
export async function createTestGuild(app: TestApp, body: Obj = {}): Promise<TestGuild> {
  const userId =
    (body.user_id as string | undefined) ?? (await upsertTestUser(app, { username: 'owner' })).id;
  const data = await post<{ guild: TestGuild }>(app, '/admin/api/guild/create', {
    name: 'test guild',
    ...body,
    user_id: userId,
  });
  return data.guild;
}

/** Creates a text channel (unless `type`/`is_category` say otherwise) in the guild. */
export async function createTestChannel(app: TestApp, guildId: string, body: Obj = {}): Promise<TestChannel> {
  const data = await post<{ channel: TestChannel }>(app, '/admin/api/channel/create', {
    name: 'test channel',
    ...body,
    guild_id: guildId,
  });
  return data.channel;
}

/** Makes a user (a bot: pass bot.user_id) a member of the guild with the given role ids. */
export async function addTestMember(
  app: TestApp,
  guildId: string,
  userId: string,
  roleIds: number[] = [],
): Promise<TestMember> {
  const data = await post<{ member: TestMember }>(app, '/admin/api/guild-member/add', {
    guild_id: guildId,
    user_id: userId,
    roles: roleIds,
  });
  return data.member;
}

/** Changes a member's roles (the whole list). */
export async function setTestMemberRoles(
  app: TestApp,
  guildId: string,
  userId: string,
  roleIds: number[],
): Promise<TestMember> {
  const data = await post<{ member: TestMember }>(app, '/admin/api/guild-member/update', {
    guild_id: guildId,
    user_id: userId,
    roles: roleIds,
  });
  return data.member;
}
