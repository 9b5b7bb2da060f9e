import { type Page, type PageRequest, skipOf } from './paging.js';
import type { PipeModels } from './pipe-model.js';
import {
  type PipeSignatureView,
  type StoredSignature,
  signatureViewOf,
  storedSignatureOf,
} from './pipe-signature.js';

export interface PipeRateLimit {
  /** Burst, in messages. */
  readonly capacity: number;
  /** Refill, in messages per second. */
  readonly per_second: number;
}

/**
 * Where a request names its event (docs/pipes.md, "Routing by event"): a request header (its name
 * in lower case) or a field of the JSON body (a dot-separated path).
 */
export type PipeEventSource = { readonly header: string } | { readonly body: string };

/** What a message over the platform's limits becomes (docs/pipes.md, "Messages that always fit"). */
export type PipeOverflow = 'split' | 'truncate' | 'fail';

/** Event name -> the template that renders it; null: the event is answered and not posted. */
export type PipeRoutes = Readonly<Record<string, string | null>>;

/** How a pipe's messages are grouped (docs/pipes.md, "Grouping"; domain/pipes/grouping.ts). */
export interface PipeGrouping {
  /** Twig template of the group key, rendered per message in the worker; '' renders: not grouped. */
  readonly key: string;
  readonly mode: 'update' | 'digest' | 'throttle';
  /** The window, in seconds (digest: one digest per window; throttle: `limit` per window). */
  readonly window_s: number;
  /** Throttle only: messages per group and window that go out on their own; null otherwise. */
  readonly limit: number | null;
}

export interface PipeRecord {
  readonly id: string;
  readonly bot_id: string;
  readonly title: string;
  readonly channel_id: string;
  readonly guild_id: string;
  readonly template_id: string | null;
  readonly enabled: boolean;
  /** null: the configured default. */
  readonly rate_limit: PipeRateLimit | null;
  /** Whether the pipe keeps its latest accepted payloads (docs/pipes.md, "Captured payloads"). */
  readonly capture: boolean;
  /** What a message over the platform's limits becomes: split (the default), truncate or fail. */
  readonly overflow: PipeOverflow;
  /** Where the event is read; null: no routing (every message renders template_id). */
  readonly event_source: PipeEventSource | null;
  /** Per-event templates; template_id is the default for events not listed. */
  readonly routes: PipeRoutes;
  /** The preset the pipe was made with (github, gitlab, ...); null: none. */
  readonly preset: string | null;
  /** Whether senders must sign their requests, and how (docs/pipes.md, "Verified senders"). */
  readonly signature: PipeSignatureView;
  /** Alert-storm control (docs/pipes.md, "Grouping"); null: every message goes out on its own. */
  readonly grouping: PipeGrouping | null;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface NewPipe
  extends Omit<PipeRecord, 'created_at' | 'updated_at' | 'enabled' | 'signature' | 'grouping'> {
  /** Absent or null: not grouped. */
  readonly grouping?: PipeGrouping | null;
  readonly token_hash: string;
  /** Absent or null: unsigned. */
  readonly signature?: StoredSignature | null;
  readonly now: number;
}

export interface PipeChanges {
  readonly title?: string;
  readonly channel_id?: string;
  readonly guild_id?: string;
  readonly template_id?: string | null;
  readonly enabled?: boolean;
  readonly rate_limit?: PipeRateLimit | null;
  readonly capture?: boolean;
  readonly overflow?: PipeOverflow;
  readonly event_source?: PipeEventSource | null;
  readonly routes?: PipeRoutes;
  readonly grouping?: PipeGrouping | null;
}

/** Sortable fields of the pipe list, as the API names them, mapped to stored fields. */
export const PIPE_SORT_FIELDS: Readonly<Record<string, string>> = {
  id: '_id',
  title: 'title',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

interface PipeDoc {
  _id: string;
  bot_id: string;
  title: string;
  channel_id: string;
  guild_id: string;
  template_id?: string | null;
  enabled: boolean;
  token_hash?: string;
  rate_limit?: { capacity: number; per_second: number } | null;
  capture?: boolean;
  overflow?: PipeOverflow;
  event_source?: { header?: string | null; body?: string | null } | null;
  routes?: StoredRoute[] | null;
  preset?: string | null;
  signature?: Parameters<typeof storedSignatureOf>[0];
  grouping?: { key: string; mode: string; window_s: number; limit?: number | null } | null;
  created_at: number;
  updated_at: number;
}

interface StoredRoute {
  event: string;
  template_id?: string | null;
}

function eventSourceOf(d: PipeDoc['event_source']): PipeEventSource | null {
  if (typeof d?.header === 'string') return { header: d.header };
  if (typeof d?.body === 'string') return { body: d.body };
  return null;
}

const routesOf = (routes: PipeDoc['routes']): PipeRoutes =>
  Object.fromEntries((routes ?? []).map((r) => [r.event, r.template_id ?? null]));

const storedRoutes = (routes: PipeRoutes): StoredRoute[] =>
  Object.entries(routes).map(([event, template_id]) => ({ event, template_id }));

const storedSource = (s: PipeEventSource | null): PipeDoc['event_source'] =>
  s === null ? null : 'header' in s ? { header: s.header } : { body: s.body };

const groupingOf = (g: PipeDoc['grouping']): PipeGrouping | null =>
  g && (g.mode === 'update' || g.mode === 'digest' || g.mode === 'throttle')
    ? { key: g.key, mode: g.mode, window_s: g.window_s, limit: g.limit ?? null }
    : null;

const storedGrouping = (g: PipeGrouping | null | undefined): PipeDoc['grouping'] =>
  g ? { key: g.key, mode: g.mode, window_s: g.window_s, limit: g.limit } : null;

const toRecord = (d: PipeDoc): PipeRecord => ({
  id: d._id,
  bot_id: d.bot_id,
  title: d.title,
  channel_id: d.channel_id,
  guild_id: d.guild_id,
  template_id: d.template_id ?? null,
  enabled: d.enabled,
  rate_limit: d.rate_limit ? { capacity: d.rate_limit.capacity, per_second: d.rate_limit.per_second } : null,
  capture: d.capture ?? true,
  overflow: d.overflow ?? 'split',
  event_source: eventSourceOf(d.event_source),
  routes: routesOf(d.routes),
  preset: d.preset ?? null,
  signature: signatureViewOf(d.signature),
  grouping: groupingOf(d.grouping),
  created_at: d.created_at,
  updated_at: d.updated_at,
});

const PUBLIC_FIELDS = { token_hash: 0 } as const;

/**
 * Pipes. Writes that can race on one pipe (update, rotate, delete) are serialised by the
 * domain with a record lock, because FerretDB v1 updates are not atomic.
 */
export function createPipeStore({ Pipe }: PipeModels) {
  return {
    async create(p: NewPipe): Promise<PipeRecord> {
      const doc: PipeDoc = {
        _id: p.id,
        bot_id: p.bot_id,
        title: p.title,
        channel_id: p.channel_id,
        guild_id: p.guild_id,
        template_id: p.template_id,
        enabled: true,
        token_hash: p.token_hash,
        rate_limit: p.rate_limit ? { ...p.rate_limit } : null,
        capture: p.capture,
        overflow: p.overflow,
        event_source: storedSource(p.event_source),
        routes: storedRoutes(p.routes),
        preset: p.preset,
        signature: p.signature ?? null,
        grouping: storedGrouping(p.grouping),
        created_at: p.now,
        updated_at: p.now,
      };
      await Pipe.collection.insertOne(doc as never);
      return toRecord(doc);
    },

    async get(id: string): Promise<PipeRecord | null> {
      const d = await Pipe.findById(id, PUBLIC_FIELDS).lean<PipeDoc>();
      return d ? toRecord(d) : null;
    },

    /**
     * The pipe with its token hash and its signature's stored secrets, for authentication (and
     * the signature's own changes) only.
     */
    async getWithTokenHash(
      id: string,
    ): Promise<{ pipe: PipeRecord; token_hash: string; signature: StoredSignature | null } | null> {
      const d = await Pipe.findById(id).lean<PipeDoc>();
      return d
        ? { pipe: toRecord(d), token_hash: d.token_hash ?? '', signature: storedSignatureOf(d.signature) }
        : null;
    },

    async update(id: string, changes: PipeChanges, now: number): Promise<PipeRecord | null> {
      const set: Record<string, unknown> = { updated_at: now };
      for (const [k, v] of Object.entries(changes)) if (v !== undefined) set[k] = v;
      if (changes.routes !== undefined) set.routes = storedRoutes(changes.routes);
      if (changes.event_source !== undefined) set.event_source = storedSource(changes.event_source);
      if (changes.grouping !== undefined) set.grouping = storedGrouping(changes.grouping);
      // No projection: FerretDB v1 does not implement findAndModify's `fields`; toRecord
      // leaves the hash out anyway.
      const d = await Pipe.findByIdAndUpdate(id, { $set: set }, { returnDocument: 'after' }).lean<PipeDoc>();
      return d ? toRecord(d) : null;
    },

    async setTokenHash(id: string, tokenHash: string, now: number): Promise<boolean> {
      const r = await Pipe.updateOne({ _id: id }, { $set: { token_hash: tokenHash, updated_at: now } });
      return r.matchedCount === 1;
    },

    /** Replaces the pipe's signature setting (null: unsigned); false when there is no such pipe. */
    async setSignature(id: string, signature: StoredSignature | null, now: number): Promise<boolean> {
      const r = await Pipe.updateOne({ _id: id }, { $set: { signature, updated_at: now } });
      return r.matchedCount === 1;
    },

    /** Ids of the pipes with a sealed signing secret, after `afterId` (paging by id), at most `limit`. */
    async listSealedIds(afterId: string | null, limit: number): Promise<string[]> {
      const query: Record<string, unknown> = { 'signature.secrets.sealed': { $type: 'string' } };
      if (afterId !== null) query._id = { $gt: afterId };
      // The driver's own find: mongoose casts `sealed` (a string path) and refuses the operator.
      const docs = await Pipe.collection
        .find(query as never, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => String(d._id));
    },

    async delete(id: string): Promise<boolean> {
      const r = await Pipe.deleteOne({ _id: id });
      return r.deletedCount === 1;
    },

    /**
     * The pipes of `botId` that use template `templateId`, as their default or in a route (a
     * template is its bot's, and so are the pipes that may use it), by id. One bot's pipes are
     * few: no index beyond bot_id's, and the routes are looked at here rather than in a query.
     */
    async listByTemplate(botId: string, templateId: string): Promise<PipeRecord[]> {
      const docs = await Pipe.find({ bot_id: botId }, PUBLIC_FIELDS).sort({ _id: 1 }).lean<PipeDoc[]>();
      return docs
        .filter(
          (d) => d.template_id === templateId || (d.routes ?? []).some((r) => r.template_id === templateId),
        )
        .map(toRecord);
    },

    /** A page of pipes, all of them or one bot's. */
    async list(req: PageRequest, filter: { readonly bot_id?: string } = {}): Promise<Page<PipeRecord>> {
      const field = PIPE_SORT_FIELDS[req.sort.field] ?? '_id';
      const sort: Record<string, 1 | -1> = { [field]: req.sort.dir };
      if (field !== '_id') sort._id = req.sort.dir;
      const query = filter.bot_id !== undefined ? { bot_id: filter.bot_id } : {};
      const [docs, total] = await Promise.all([
        Pipe.find(query, PUBLIC_FIELDS).sort(sort).skip(skipOf(req)).limit(req.pageSize).lean<PipeDoc[]>(),
        Pipe.countDocuments(query),
      ]);
      return { items: docs.map(toRecord), total };
    },
  };
}

export type PipeStore = ReturnType<typeof createPipeStore>;
