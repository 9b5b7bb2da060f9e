import { randomInt } from 'node:crypto';
import mongoose from 'mongoose';
import { isDuplicateKey } from './db-errors.js';
import { type Page, type PageRequest, skipOf } from './paging.js';
import type { BotRecord } from './records.js';
import type { TemplateModels } from './template-model.js';

/** A template as the store hands it out (plain object, `id` not `_id`). */
export interface TemplateRecord {
  readonly id: string;
  readonly bot_id: string;
  readonly title: string;
  readonly type: number;
  readonly msgtype: number;
  readonly status: number;
  readonly banned: boolean;
  readonly consumption: number;
  readonly test_data: string;
  readonly test_channel: string;
  readonly content: string;
  readonly version: number;
  readonly created_at: number;
  readonly updated_at: number;
  /** null while the template exists; the deletion time (ms) for a tombstone. */
  readonly deleted_at: number | null;
}

export interface NewTemplate {
  readonly title: string;
  readonly type: number;
  readonly msgtype: number;
  readonly test_data: string;
  readonly test_channel: string;
  readonly content: string;
  readonly consumption: number;
}

/** Fields a change may set (the version is bumped by the store, never set by callers). */
export interface TemplateChanges {
  readonly title?: string;
  readonly type?: number;
  readonly msgtype?: number;
  readonly status?: number;
  readonly banned?: boolean;
  readonly consumption?: number;
  readonly test_data?: string;
  readonly test_channel?: string;
  readonly content?: string;
}

/** Sortable fields of the template list, as the API names them, mapped to stored fields. */
export const TEMPLATE_SORT_FIELDS: Readonly<Record<string, string>> = {
  id: '_id',
  title: 'title',
  created_at: 'created_at',
  updated_at: 'updated_at',
  status: 'status',
  msgtype: 'msgtype',
};

/** What the operators' and the studio's template list may filter on, besides paging. */
export interface TemplateListFilter {
  readonly bot_id?: string;
  /** Part of the title, any case. */
  readonly q?: string;
  readonly status?: number;
  readonly banned?: boolean;
}

/** A regular expression matching `text` literally. */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Template ids: 16 characters of [0-9A-Za-z] from the CSPRNG (about 95 bits), so unguessable. */
export const TEMPLATE_ID_LENGTH = 16;
const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function newTemplateId(): string {
  let id = '';
  for (let i = 0; i < TEMPLATE_ID_LENGTH; i++) id += ID_ALPHABET[randomInt(0, ID_ALPHABET.length)];
  return id;
}

interface TemplateDoc {
  _id: string;
  bot_id: string;
  title: string;
  type?: number;
  msgtype?: number;
  status?: number;
  banned?: boolean;
  consumption: number;
  test_data?: string;
  test_channel?: string;
  content?: string;
  version?: number;
  created_at: number;
  updated_at: number;
  deleted_at?: number | null;
}

const toRecord = (d: TemplateDoc): TemplateRecord => ({
  id: d._id,
  bot_id: d.bot_id,
  title: d.title,
  type: d.type ?? 0,
  msgtype: d.msgtype ?? 1,
  status: d.status ?? 0,
  banned: d.banned ?? false,
  consumption: d.consumption,
  test_data: d.test_data ?? '',
  test_channel: d.test_channel ?? '',
  content: d.content ?? '',
  version: d.version ?? 1,
  created_at: d.created_at,
  updated_at: d.updated_at,
  deleted_at: d.deleted_at ?? null,
});

/** How many fresh ids to try when one collides (practically never at 95 bits). */
const ID_ATTEMPTS = 3;

/**
 * Every function takes the owning bot and filters on its id: another bot's template is simply
 * not there. Writes that can race on one template are serialised by the caller (record lock);
 * each write also bumps `version` and names the version it expects, so a write that slipped past
 * the lock fails instead of losing a change.
 */
export function createTemplateStore({ Template }: TemplateModels) {
  /** A page of live templates matching `filter`. */
  async function listLive(req: PageRequest, filter: TemplateListFilter): Promise<Page<TemplateRecord>> {
    const field = TEMPLATE_SORT_FIELDS[req.sort.field] ?? 'created_at';
    // _id as tie-breaker keeps pages stable when the sort field has equal values.
    const sort: Record<string, 1 | -1> = { [field]: req.sort.dir };
    if (field !== '_id') sort._id = req.sort.dir;
    const query: Record<string, unknown> = { deleted_at: null };
    if (filter.bot_id !== undefined) query.bot_id = filter.bot_id;
    if (filter.q !== undefined && filter.q !== '') {
      query.title = mongoose.trusted({ $regex: literal(filter.q), $options: 'i' });
    }
    if (filter.status !== undefined) query.status = filter.status;
    // Records from before the flag have none: they are not banned.
    if (filter.banned !== undefined) query.banned = filter.banned ? true : mongoose.trusted({ $ne: true });
    const [docs, total] = await Promise.all([
      Template.find(query).sort(sort).skip(skipOf(req)).limit(req.pageSize).lean<TemplateDoc[]>(),
      Template.countDocuments(query),
    ]);
    return { items: docs.map(toRecord), total };
  }

  return {
    async create(bot: BotRecord, t: NewTemplate, now: number): Promise<TemplateRecord> {
      for (let attempt = 1; ; attempt++) {
        const doc: TemplateDoc = {
          _id: newTemplateId(),
          bot_id: bot.id,
          title: t.title,
          type: t.type,
          msgtype: t.msgtype,
          status: 0,
          banned: false,
          consumption: t.consumption,
          test_data: t.test_data,
          test_channel: t.test_channel,
          content: t.content,
          version: 1,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        };
        try {
          await Template.collection.insertOne(doc as never);
          return toRecord(doc);
        } catch (err) {
          if (!isDuplicateKey(err) || attempt >= ID_ATTEMPTS) throw err;
        }
      }
    },

    /** A live template of this bot, or null (absent, another bot's, or deleted). */
    async get(bot: BotRecord, id: string): Promise<TemplateRecord | null> {
      const d = await Template.findOne({ _id: id, bot_id: bot.id, deleted_at: null }).lean<TemplateDoc>();
      return d ? toRecord(d) : null;
    },

    /** Like get, but also finds the tombstone of a deleted template (deleted_at set). */
    async getWithTombstone(bot: BotRecord, id: string): Promise<TemplateRecord | null> {
      const d = await Template.findOne({ _id: id, bot_id: bot.id }).lean<TemplateDoc>();
      return d ? toRecord(d) : null;
    },

    list(bot: BotRecord, req: PageRequest): Promise<Page<TemplateRecord>> {
      return listLive(req, { bot_id: bot.id });
    },

    /** Operators: a live template by id, whatever its bot, or null (absent or deleted). */
    async getAnyBot(id: string): Promise<TemplateRecord | null> {
      const d = await Template.findOne({ _id: id, deleted_at: null }).lean<TemplateDoc>();
      return d ? toRecord(d) : null;
    },

    /** Operators and the studio: live templates of every bot, or as `filter` says, sorted as `list`. */
    listAnyBot(req: PageRequest, filter: TemplateListFilter = {}): Promise<Page<TemplateRecord>> {
      return listLive(req, filter);
    },

    /**
     * Applies `changes` to the live template at `expectedVersion` and bumps the version. Null when
     * the template is gone or was changed meanwhile (the version moved).
     */
    async update(
      bot: BotRecord,
      id: string,
      expectedVersion: number,
      changes: TemplateChanges,
      now: number,
    ): Promise<TemplateRecord | null> {
      const set: Record<string, unknown> = { updated_at: now };
      for (const [k, v] of Object.entries(changes)) if (v !== undefined) set[k] = v;
      const d = await Template.findOneAndUpdate(
        { _id: id, bot_id: bot.id, deleted_at: null, version: expectedVersion },
        { $set: set, $inc: { version: 1 } },
        { returnDocument: 'after' },
      ).lean<TemplateDoc>();
      return d ? toRecord(d) : null;
    },

    /** Turns the live template into a tombstone (content and test data dropped). */
    async markDeleted(bot: BotRecord, id: string, now: number): Promise<boolean> {
      const r = await Template.updateOne(
        { _id: id, bot_id: bot.id, deleted_at: null },
        { $set: { deleted_at: now, updated_at: now, content: '', test_data: '' }, $inc: { version: 1 } },
      );
      return r.matchedCount === 1;
    },
  };
}

export type TemplateStore = ReturnType<typeof createTemplateStore>;
