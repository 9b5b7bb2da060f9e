import type { DirectoryModels } from './directory-models.js';
import type { ChannelRecord, RoleOverwrite, UserOverwrite } from './directory-records.js';
import { type Page, type PageRequest, skipOf } from './paging.js';

export type NewChannel = Omit<ChannelRecord, 'created_at' | 'updated_at'>;

/** Fields a channel update may set; the guild never changes. */
export type ChannelChanges = Partial<Omit<ChannelRecord, 'id' | 'guild_id' | 'created_at' | 'updated_at'>>;

/** Sortable fields of the channel list, as the API names them, mapped to stored fields. */
export const CHANNEL_SORT_FIELDS: Readonly<Record<string, string>> = {
  id: '_id',
  name: 'name',
  level: 'level',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

/** Most channels one guild view or template loads at once. */
export const MAX_GUILD_CHANNELS = 1000;

interface ChannelDoc extends Omit<ChannelRecord, 'id'> {
  _id: string;
}

const roleOw = (o: RoleOverwrite): RoleOverwrite => ({
  role_id: o.role_id,
  allow: o.allow ?? 0,
  deny: o.deny ?? 0,
});
const userOw = (o: UserOverwrite): UserOverwrite => ({
  user_id: o.user_id,
  allow: o.allow ?? 0,
  deny: o.deny ?? 0,
});

const toRecord = (d: ChannelDoc): ChannelRecord => ({
  id: d._id,
  guild_id: d.guild_id,
  name: d.name,
  user_id: d.user_id ?? '',
  topic: d.topic ?? '',
  type: d.type ?? 1,
  slow_mode: d.slow_mode ?? 0,
  is_category: d.is_category ?? false,
  parent_id: d.parent_id ?? '',
  level: d.level ?? 0,
  permission_overwrites: (d.permission_overwrites ?? []).map(roleOw),
  permission_users: (d.permission_users ?? []).map(userOw),
  permission_sync: d.permission_sync ?? 0,
  created_at: d.created_at,
  updated_at: d.updated_at,
});

const defined = (o: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export function createChannelStore({ Channel }: DirectoryModels) {
  return {
    async create(channel: NewChannel, now: number): Promise<ChannelRecord> {
      const { id, ...rest } = channel;
      const doc: ChannelDoc = {
        _id: id,
        ...rest,
        permission_overwrites: rest.permission_overwrites.map(roleOw),
        permission_users: rest.permission_users.map(userOw),
        created_at: now,
        updated_at: now,
      };
      await Channel.collection.insertOne(doc as never);
      return toRecord(doc);
    },

    async get(id: string): Promise<ChannelRecord | null> {
      const d = await Channel.findById(id).lean<ChannelDoc>();
      return d ? toRecord(d) : null;
    },

    /** Not atomic on FerretDB v1: callers that can race hold the channel's record lock. */
    async update(id: string, changes: ChannelChanges, now: number): Promise<ChannelRecord | null> {
      const set = defined(changes);
      if (changes.permission_overwrites)
        set.permission_overwrites = changes.permission_overwrites.map(roleOw);
      if (changes.permission_users) set.permission_users = changes.permission_users.map(userOw);
      const d = await Channel.findByIdAndUpdate(
        id,
        { $set: { ...set, updated_at: now } },
        { returnDocument: 'after' },
      ).lean<ChannelDoc>();
      return d ? toRecord(d) : null;
    },

    async list(guildId: string, req: PageRequest): Promise<Page<ChannelRecord>> {
      const field = CHANNEL_SORT_FIELDS[req.sort.field] ?? '_id';
      const sort: Record<string, 1 | -1> = { [field]: req.sort.dir };
      if (field !== '_id') sort._id = req.sort.dir;
      const filter = { guild_id: guildId };
      const [docs, total] = await Promise.all([
        Channel.find(filter).sort(sort).skip(skipOf(req)).limit(req.pageSize).lean<ChannelDoc[]>(),
        Channel.countDocuments(filter),
      ]);
      return { items: docs.map(toRecord), total };
    },

    /** Every channel of a guild (at most MAX_GUILD_CHANNELS), by level then id. */
    async listAll(guildId: string): Promise<ChannelRecord[]> {
      const docs = await Channel.find({ guild_id: guildId })
        .sort({ level: 1, _id: 1 })
        .limit(MAX_GUILD_CHANNELS)
        .lean<ChannelDoc[]>();
      return docs.map(toRecord);
    },
  };
}

export type ChannelStore = ReturnType<typeof createChannelStore>;
