import mongoose from 'mongoose';
import type { DirectoryModels } from './directory-models.js';
import type { GuildRecord, RoleRecord } from './directory-records.js';
import { type Page, type PageRequest, skipOf } from './paging.js';

/** A guild as created: every field given (the domain fills defaults). */
export type NewGuild = Omit<GuildRecord, 'created_at' | 'updated_at'>;

/** Fields a guild update may set; omitted fields keep their value. */
export type GuildChanges = Partial<Omit<GuildRecord, 'id' | 'created_at' | 'updated_at'>>;

/** Sortable fields of the guild list, as the API names them, mapped to stored fields. */
export const GUILD_SORT_FIELDS: Readonly<Record<string, string>> = {
  id: '_id',
  name: 'name',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

interface GuildDoc extends Omit<GuildRecord, 'id'> {
  _id: string;
}

const toRole = (r: RoleRecord): RoleRecord => ({
  role_id: r.role_id,
  name: r.name ?? '',
  color: r.color ?? 0,
  position: r.position ?? 0,
  hoist: r.hoist ?? 0,
  mentionable: r.mentionable ?? 0,
  permissions: r.permissions ?? 0,
});

const toRecord = (d: GuildDoc): GuildRecord => ({
  id: d._id,
  name: d.name,
  topic: d.topic ?? '',
  user_id: d.user_id,
  icon: d.icon ?? '',
  notify_type: d.notify_type ?? 0,
  region: d.region ?? '',
  enable_open: d.enable_open ?? false,
  open_id: d.open_id ?? '',
  default_channel_id: d.default_channel_id ?? '',
  welcome_channel_id: d.welcome_channel_id ?? '',
  roles: (d.roles ?? []).map(toRole),
  created_at: d.created_at,
  updated_at: d.updated_at,
});

/** Only defined values, so `undefined` never unsets a stored field. */
const defined = (o: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export function createGuildStore({ Guild }: DirectoryModels) {
  return {
    /** Inserts; a duplicate id throws the driver's duplicate-key error (see isDuplicateKey). */
    async create(guild: NewGuild, now: number): Promise<GuildRecord> {
      const { id, ...rest } = guild;
      const doc: GuildDoc = {
        _id: id,
        ...rest,
        roles: rest.roles.map(toRole),
        created_at: now,
        updated_at: now,
      };
      await Guild.collection.insertOne(doc as never);
      return toRecord(doc);
    },

    async get(id: string): Promise<GuildRecord | null> {
      const d = await Guild.findById(id).lean<GuildDoc>();
      return d ? toRecord(d) : null;
    },

    /** The guilds of `ids` that exist, by id. */
    async getMany(ids: readonly string[]): Promise<GuildRecord[]> {
      if (ids.length === 0) return [];
      const docs = await Guild.find({ _id: mongoose.trusted({ $in: [...ids] }) })
        .sort({ _id: 1 })
        .lean<GuildDoc[]>();
      return docs.map(toRecord);
    },

    /** Not atomic on FerretDB v1: callers that can race hold the guild's record lock. */
    async update(id: string, changes: GuildChanges, now: number): Promise<GuildRecord | null> {
      const set = defined(changes);
      if (changes.roles) set.roles = changes.roles.map(toRole);
      const d = await Guild.findByIdAndUpdate(
        id,
        { $set: { ...set, updated_at: now } },
        { returnDocument: 'after' },
      ).lean<GuildDoc>();
      return d ? toRecord(d) : null;
    },

    async list(req: PageRequest): Promise<Page<GuildRecord>> {
      const field = GUILD_SORT_FIELDS[req.sort.field] ?? '_id';
      const sort: Record<string, 1 | -1> = { [field]: req.sort.dir };
      if (field !== '_id') sort._id = req.sort.dir;
      const [docs, total] = await Promise.all([
        Guild.find({}).sort(sort).skip(skipOf(req)).limit(req.pageSize).lean<GuildDoc[]>(),
        Guild.countDocuments({}),
      ]);
      return { items: docs.map(toRecord), total };
    },
  };
}

export type GuildStore = ReturnType<typeof createGuildStore>;
