import type { Models } from './models.js';
import { type Page, type PageRequest, skipOf } from './paging.js';
import type { BotRecord, BotSink, ImageRef } from './records.js';

export interface NewBot {
  readonly id: string;
  readonly name: string;
  readonly user_id: string;
  readonly token_hash: string;
  readonly default_score: number;
  readonly default_img_id: string;
  readonly img_list: readonly ImageRef[];
  readonly now: number;
}

export interface BotChanges {
  readonly name?: string;
  readonly enabled?: boolean;
  readonly default_score?: number;
  readonly default_img_id?: string;
  readonly img_list?: readonly ImageRef[];
  readonly rate_capacity?: number | null;
  readonly rate_per_second?: number | null;
  readonly sink?: BotSink;
  readonly relay_url?: string;
  /** A secret: stored for sending, never returned by get/list. '' clears it. */
  readonly upstream_token?: string;
}

/** Sortable fields of the bot list, as the API names them, mapped to stored fields. */
export const BOT_SORT_FIELDS: Readonly<Record<string, string>> = {
  id: '_id',
  name: 'name',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

interface BotDoc {
  _id: string;
  name: string;
  user_id: string;
  enabled: boolean;
  default_score: number;
  default_img_id?: string | null;
  img_list?: ImageRef[];
  created_at: number;
  updated_at: number;
  token_hash?: string;
  rate_capacity?: number | null;
  rate_per_second?: number | null;
  sink?: BotSink;
  relay_url?: string;
  upstream_token?: string;
}

const toRecord = (d: BotDoc): BotRecord => ({
  id: d._id,
  name: d.name,
  user_id: d.user_id,
  enabled: d.enabled,
  default_score: d.default_score,
  default_img_id: d.default_img_id ?? '',
  img_list: (d.img_list ?? []).map((i) => ({ id: i.id, url: i.url })),
  rate_capacity: d.rate_capacity ?? null,
  rate_per_second: d.rate_per_second ?? null,
  sink: d.sink ?? 'store',
  relay_url: d.relay_url ?? '',
  upstream_token_set: (d.upstream_token ?? '') !== '',
  created_at: d.created_at,
  updated_at: d.updated_at,
});

// The upstream token is read (toRecord turns it into upstream_token_set) but never returned.
const PUBLIC_FIELDS = { token_hash: 0 } as const;

export function createBotStore({ Bot }: Models) {
  return {
    async create(bot: NewBot): Promise<BotRecord> {
      const doc: BotDoc = {
        _id: bot.id,
        name: bot.name,
        user_id: bot.user_id,
        token_hash: bot.token_hash,
        enabled: true,
        default_score: bot.default_score,
        default_img_id: bot.default_img_id,
        img_list: [...bot.img_list],
        created_at: bot.now,
        updated_at: bot.now,
      };
      await Bot.collection.insertOne(doc as never);
      return toRecord(doc);
    },

    async get(id: string): Promise<BotRecord | null> {
      const d = await Bot.findById(id, PUBLIC_FIELDS).lean<BotDoc>();
      return d ? toRecord(d) : null;
    },

    /** The bot with its token hash, for authentication only. */
    async getWithTokenHash(id: string): Promise<{ bot: BotRecord; token_hash: string } | null> {
      const d = await Bot.findById(id).lean<BotDoc>();
      return d ? { bot: toRecord(d), token_hash: d.token_hash ?? '' } : null;
    },

    /** The relay sink's upstream token, for the worker's dispatch only ('' when none). */
    async getUpstreamToken(id: string): Promise<string> {
      const d = await Bot.findById(id).lean<BotDoc>();
      return d?.upstream_token ?? '';
    },

    async update(id: string, changes: BotChanges, now: number): Promise<BotRecord | null> {
      const d = await Bot.findByIdAndUpdate(
        id,
        { $set: { ...changes, updated_at: now } },
        // No projection here: FerretDB v1 does not implement findAndModify's `fields`; toRecord
        // leaves the hash out anyway.
        { returnDocument: 'after' },
      ).lean<BotDoc>();
      return d ? toRecord(d) : null;
    },

    async setTokenHash(id: string, tokenHash: string, now: number): Promise<boolean> {
      const r = await Bot.updateOne({ _id: id }, { $set: { token_hash: tokenHash, updated_at: now } });
      return r.matchedCount === 1;
    },

    async list(req: PageRequest): Promise<Page<BotRecord>> {
      const field = BOT_SORT_FIELDS[req.sort.field] ?? '_id';
      // _id as tie-breaker keeps pages stable when the sort field has equal values.
      const sort: Record<string, 1 | -1> = { [field]: req.sort.dir };
      if (field !== '_id') sort._id = req.sort.dir;
      const [docs, total] = await Promise.all([
        Bot.find({}, PUBLIC_FIELDS).sort(sort).skip(skipOf(req)).limit(req.pageSize).lean<BotDoc[]>(),
        Bot.countDocuments({}),
      ]);
      return { items: docs.map(toRecord), total };
    },
  };
}

export type BotStore = ReturnType<typeof createBotStore>;
