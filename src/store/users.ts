import type { Models } from './models.js';
import type { UserRecord } from './records.js';

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
});

export function createUserStore({ User }: Models) {
  return {
    async create(user: UserRecord, now: number): Promise<UserRecord> {
      const { id, ...rest } = user;
      await User.collection.insertOne({ _id: id, ...rest, created_at: now, updated_at: now } as never);
      return user;
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
