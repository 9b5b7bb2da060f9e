import type { DirectoryModels } from './directory-models.js';
import type { MemberRecord } from './directory-records.js';
import { type Page, type PageRequest, skipOf } from './paging.js';

export interface MemberChanges {
  readonly nickname?: string;
  readonly roles?: readonly number[];
}

/** Sortable fields of the member list, as the API names them. */
export const MEMBER_SORT_FIELDS: Readonly<Record<string, string>> = {
  user_id: 'user_id',
  joined_at: 'joined_at',
  updated_at: 'updated_at',
};

/** Most guilds one user's membership list returns. */
export const MAX_USER_GUILDS = 1000;

interface MemberDoc extends MemberRecord {
  _id?: unknown;
}

const toRecord = (d: MemberDoc): MemberRecord => ({
  guild_id: d.guild_id,
  user_id: d.user_id,
  nickname: d.nickname ?? '',
  roles: [...(d.roles ?? [])],
  joined_at: d.joined_at,
  updated_at: d.updated_at,
});

export function createMemberStore({ Member }: DirectoryModels) {
  return {
    /** Inserts; an existing membership throws the driver's duplicate-key error. */
    async add(member: Omit<MemberRecord, 'joined_at' | 'updated_at'>, now: number): Promise<MemberRecord> {
      const doc: MemberRecord = {
        guild_id: member.guild_id,
        user_id: member.user_id,
        nickname: member.nickname,
        roles: [...member.roles],
        joined_at: now,
        updated_at: now,
      };
      await Member.collection.insertOne({ ...doc } as never);
      return doc;
    },

    async get(guildId: string, userId: string): Promise<MemberRecord | null> {
      const d = await Member.findOne({ guild_id: guildId, user_id: userId }).lean<MemberDoc>();
      return d ? toRecord(d) : null;
    },

    /** Not atomic on FerretDB v1: callers hold the membership's record lock. */
    async update(
      guildId: string,
      userId: string,
      changes: MemberChanges,
      now: number,
    ): Promise<MemberRecord | null> {
      const set: Record<string, unknown> = { updated_at: now };
      if (changes.nickname !== undefined) set.nickname = changes.nickname;
      if (changes.roles !== undefined) set.roles = [...changes.roles];
      const d = await Member.findOneAndUpdate(
        { guild_id: guildId, user_id: userId },
        { $set: set },
        { returnDocument: 'after' },
      ).lean<MemberDoc>();
      return d ? toRecord(d) : null;
    },

    async remove(guildId: string, userId: string): Promise<boolean> {
      const r = await Member.deleteOne({ guild_id: guildId, user_id: userId });
      return r.deletedCount === 1;
    },

    async list(guildId: string, req: PageRequest): Promise<Page<MemberRecord>> {
      const field = MEMBER_SORT_FIELDS[req.sort.field] ?? 'user_id';
      const sort: Record<string, 1 | -1> = { [field]: req.sort.dir };
      if (field !== 'user_id') sort.user_id = req.sort.dir;
      const filter = { guild_id: guildId };
      const [docs, total] = await Promise.all([
        Member.find(filter).sort(sort).skip(skipOf(req)).limit(req.pageSize).lean<MemberDoc[]>(),
        Member.countDocuments(filter),
      ]);
      return { items: docs.map(toRecord), total };
    },

    /** The ids of the guilds a user is a member of (at most MAX_USER_GUILDS). */
    async guildIdsOf(userId: string): Promise<string[]> {
      const docs = await Member.find({ user_id: userId })
        .sort({ guild_id: 1 })
        .limit(MAX_USER_GUILDS)
        .lean<MemberDoc[]>();
      return docs.map((d) => d.guild_id);
    },
  };
}

export type MemberStore = ReturnType<typeof createMemberStore>;
