import mongoose from 'mongoose';
import { upsertRetryingOnce } from './db-errors.js';
import type { Models } from './models.js';
import type { UserRecord } from './records.js';

/** What a user upsert sets; omitted fields keep their value (a new user starts from defaults). */
export type UserChanges = Partial<Omit<UserRecord, 'id' | 'bot' | 'updated_at'>>;

interface UserDoc extends Omit<UserRecord, 'id'> {
  _id: string;
}

const toRecord = (d: UserDoc): UserRecord => ({
  id: d._id,
  username: d.username,
  nickname: d.nickname ?? '',
  identify_num: d.identify_num ?? '',
  online: d.online ?? false,
  bot: d.bot ?? false,
  status: d.status ?? 0,
  avatar: d.avatar ?? '',
  vip_avatar: d.vip_avatar ?? '',
  mobile_verified: d.mobile_verified ?? false,
  updated_at: d.updated_at ?? 0,
});

export function createUserStore({ User }: Models) {
  return {
    async create(user: Omit<UserRecord, 'updated_at'>, now: number): Promise<UserRecord> {
      const { id, ...rest } = user;
      await User.collection.insertOne({ _id: id, ...rest, created_at: now, updated_at: now } as never);
      return { ...user, updated_at: now };
    },

    /**
     * Sets the given fields of user `id`, creating the user (not a bot) if needed. Not atomic on
     * FerretDB v1: callers hold the user's record lock.
     */
    async upsert(id: string, changes: UserChanges, now: number): Promise<UserRecord> {
      const set: Record<string, unknown> = { updated_at: now };
      for (const [k, v] of Object.entries(changes)) if (v !== undefined) set[k] = v;
      const onInsert: Record<string, unknown> = { created_at: now, bot: false };
      const run = () =>
        User.findOneAndUpdate(
          { _id: id },
          { $set: set, $setOnInsert: onInsert },
          { upsert: true, returnDocument: 'after' },
        ).lean<UserDoc>();
      const d = await upsertRetryingOnce(run);
      if (!d) throw new Error('upsert returned no document');
      return toRecord(d);
    },

    /** The users of `ids` that exist, in no particular order. */
    async getMany(ids: readonly string[]): Promise<UserRecord[]> {
      if (ids.length === 0) return [];
      const docs = await User.find({ _id: mongoose.trusted({ $in: [...new Set(ids)] }) }).lean<UserDoc[]>();
      return docs.map(toRecord);
    },

    async get(id: string): Promise<UserRecord | null> {
      const d = await User.findById(id).lean<UserDoc>();
      return d ? toRecord(d) : null;
    },

    async rename(id: string, username: string, now: number): Promise<void> {
      await User.updateOne({ _id: id }, { $set: { username, nickname: username, updated_at: now } });
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
