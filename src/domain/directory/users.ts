import { NotFoundError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { lockKey } from '../../redis/keys.js';
import type { UserChanges, UserRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { publishDirectoryChange } from './change-feed.js';

/** The user, or null. */
export function getUser(deps: Deps, id: string): Promise<UserRecord | null> {
  return deps.store.users.get(id);
}

/** The user, or 404. */
export async function requireUser(deps: Deps, id: string): Promise<UserRecord> {
  const user = await deps.store.users.get(id);
  if (!user) throw new NotFoundError('user');
  return user;
}

/** The users of `ids` that exist, in no particular order. */
export function getUsers(deps: Deps, ids: readonly string[]): Promise<UserRecord[]> {
  return deps.store.users.getMany(ids);
}

/**
 * Creates or changes user `id` (the id is taken as given). Omitted fields keep their value; a
 * new user starts from empty defaults and is not a bot. A bot's own user (created with the bot)
 * may be changed too; its `bot` flag never changes here.
 */
export async function upsertUser(deps: Deps, id: string, changes: UserChanges): Promise<UserRecord> {
  const key = lockKey(deps.config.redisPrefix, 'user', id);
  const user = await withRecordLock(deps.redis, key, () => deps.store.users.upsert(id, changes, deps.now()));
  await publishDirectoryChange(deps, { kind: 'user', id });
  return user;
}
