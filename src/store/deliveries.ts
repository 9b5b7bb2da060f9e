import mongoose from 'mongoose';
import { unpackText } from '../text/packed-text.js';
import { DUPLICATE_KEY } from './db-errors.js';
import type { DeliveryModels } from './delivery-model.js';
import { type Page, type PageRequest, skipOf } from './paging.js';

/** Where one pipe message stands. `queued` is also what the status answers before any record. */
export type DeliveryStatus = 'queued' | 'rate_limited' | 'sent' | 'folded' | 'failed';

/**
 * What a history entry names: the status a transition wrote, or how it got there where the
 * status alone does not say (`retrying`: queued again after a failed attempt; `replayed`: an
 * operator sent a dead message again). src/domain/deliveries/lifecycle.ts owns these names.
 */
export type DeliveryStage = DeliveryStatus | 'retrying' | 'replayed';

/** One recorded transition of a message (its record keeps the last DELIVERY_HISTORY_MAX). */
export interface DeliveryEvent {
  readonly status: DeliveryStage;
  /** When it happened, in ms. */
  readonly at: number;
  readonly reason?: string;
  readonly code?: number;
  /** When the next try is due (a wait or a retry), in ms. */
  readonly retry_at?: number;
  /** Delivery attempts made by then. */
  readonly attempt?: number;
}

/** A PHP warning the template's render went past, at its place in the template. */
export interface RenderWarning {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/**
 * The render's warnings as a record keeps them, when it had any: the first few (`warnings`) and
 * how many in all (`warning_count`), as the studio's render answers them.
 */
export interface RenderWarnings {
  readonly warnings: readonly RenderWarning[];
  readonly warning_count: number;
}

/**
 * The message as it was sent: type 9 KMarkdown, or 10 card (content is the card JSON), with the
 * render's warnings when it had any.
 */
export interface RenderedMessage extends Partial<RenderWarnings> {
  readonly type: number;
  readonly content: string;
}

/**
 * The message as a record keeps it: as it is, or, when long, packed (src/text/packed-text.ts);
 * detail() answers it unpacked.
 */
export type StoredRendered =
  | RenderedMessage
  | ({ readonly type: number; readonly packed: string } & Partial<RenderWarnings>);

/** How many transitions a record keeps, the newest. */
export const DELIVERY_HISTORY_MAX = 50;

/**
 * What a record is filed under, written with every transition: the ids, and the template the
 * message was accepted with and its event (a routed pipe's), when the writer knows them.
 */
export interface DeliveryRecordIds {
  readonly bot_id: string;
  readonly pipe_id: string;
  readonly channel_id: string;
  readonly template_id?: string | null;
  readonly event?: string | null;
}

export interface DeliveryRecord {
  readonly msg_id: string;
  readonly bot_id: string;
  readonly pipe_id: string;
  readonly channel_id: string;
  /** The template the door chose (the pipe's, or its route's); null: none, or not known. */
  readonly template_id: string | null;
  /** The event of a message of a pipe that routes by event; null otherwise. */
  readonly event: string | null;
  readonly status: DeliveryStatus;
  /** Reason code of a failure (src/domain/deliveries/reasons.ts), or of the last retry. */
  readonly reason: string | null;
  /** Catalogue code of the reason (e.g. 40323, or 40011 for a render error). */
  readonly code: number | null;
  /**
   * Human-readable message of that reason, in English, as it was worded when it was recorded
   * (upstream's message for relay refusals). Reads word it anew in the reader's language from
   * `code` and `params` (src/domain/deliveries/failure-text.ts).
   */
  readonly message: string | null;
  /**
   * The parameters of the reason's catalogue entry (`{channel_id}`, a relay's `{detail}`...);
   * null on records from before they were kept, and on records without a failure.
   */
  readonly params: Readonly<Record<string, unknown>> | null;
  /** Extra detail of a failure, e.g. a template error's {code, line, column, excerpt}. */
  readonly detail: Readonly<Record<string, unknown>> | null;
  /** Delivery attempts started (rate-limit waits are not attempts). */
  readonly attempts: number;
  /** Times an operator replayed the message. */
  readonly replays: number;
  /** When the sink took the message, in ms. */
  readonly sent_at: number | null;
  /**
   * The relay's msg_id for a relayed message (a folded one: its carrier's, when it has one; the
   * first one's, for a message split over several).
   */
  readonly upstream_msg_id: string | null;
  /**
   * A folded message (docs/pipes.md, "Grouping"): the msg_id of the message that carried it (its
   * group's digest, or the message its update edited); null otherwise.
   */
  readonly folded_into: string | null;
  /**
   * Every message a message split over several was sent as, in order (docs/pipes.md, "Messages
   * that always fit"); null: it was sent as one (or is not sent yet).
   */
  readonly parts: readonly DeliveryPart[] | null;
  /** While rate_limited: when the next try is due, in ms. */
  readonly retry_at: number | null;
  readonly not_permissions_mention: readonly string[];
  /** When the message was accepted, in ms (its first write's time on records from before that). */
  readonly created_at: number;
  readonly updated_at: number;
}

/** One message of a message split over several: its id (the part's) and the relay's id for it. */
export interface DeliveryPart {
  readonly msg_id: string;
  readonly upstream_msg_id: string | null;
}

/**
 * A record with what only one message's page shows: its transitions, oldest first, and the
 * message as sent. Records written before these existed read as `[]` and null.
 */
export interface DeliveryDetail extends DeliveryRecord {
  readonly history: readonly DeliveryEvent[];
  readonly rendered: RenderedMessage | null;
  /** When the retention sweep dropped `rendered` (ms); null while kept, or never kept. */
  readonly rendered_dropped_at: number | null;
}

/** Fields a worker or replay writes; omitted fields keep their value. */
export type DeliveryChanges = Partial<
  Omit<
    DeliveryRecord,
    'msg_id' | 'bot_id' | 'pipe_id' | 'channel_id' | 'template_id' | 'event' | 'created_at' | 'updated_at'
  >
> & {
  /** The job to keep for replay (only while failed); null drops it. */
  readonly job?: Readonly<Record<string, unknown>> | null;
  /** The message as sent (written with `sent`). */
  readonly rendered?: StoredRendered | null;
  /** When the retention sweep dropped `rendered`; null again once the message is sent anew. */
  readonly rendered_dropped_at?: number | null;
};

export interface DeliveryFilter {
  readonly status?: DeliveryStatus;
  readonly bot_id?: string;
  readonly pipe_id?: string;
  /** The reason code a failed (or retried) message was recorded with. */
  readonly reason?: string;
  /** true: only records with a retry_at (waiting); false: only those without. */
  readonly waiting?: boolean;
  /** true: only messages an operator replayed (replays > 0). */
  readonly replayed?: boolean;
  /** created_at at or after this, in ms. */
  readonly since?: number;
  /** created_at at or before this, in ms. */
  readonly until?: number;
}

/** How a list is ordered: newest first by one of these. */
export const DELIVERY_SORT_FIELDS = ['updated_at', 'created_at'] as const;

interface DeliveryDoc extends Omit<DeliveryRecord, 'msg_id'> {
  _id: string;
  job?: Record<string, unknown> | null;
  history?: DeliveryEvent[];
  rendered?: StoredRendered | null;
  rendered_dropped_at?: number | null;
}

const toRecord = (d: DeliveryDoc): DeliveryRecord => ({
  msg_id: d._id,
  bot_id: d.bot_id,
  pipe_id: d.pipe_id,
  channel_id: d.channel_id,
  template_id: d.template_id ?? null,
  event: d.event ?? null,
  status: d.status,
  reason: d.reason ?? null,
  code: d.code ?? null,
  message: d.message ?? null,
  params: d.params ?? null,
  detail: d.detail ?? null,
  attempts: d.attempts ?? 0,
  replays: d.replays ?? 0,
  sent_at: d.sent_at ?? null,
  upstream_msg_id: d.upstream_msg_id ?? null,
  folded_into: d.folded_into ?? null,
  parts: d.parts
    ? d.parts.map((p) => ({ msg_id: p.msg_id, upstream_msg_id: p.upstream_msg_id ?? null }))
    : null,
  retry_at: d.retry_at ?? null,
  not_permissions_mention: [...(d.not_permissions_mention ?? [])],
  created_at: d.created_at,
  updated_at: d.updated_at,
});

/** A kept message as sent, unpacked; null when none was kept (or it cannot be read). */
function renderedOf(r: StoredRendered | null | undefined): RenderedMessage | null {
  if (!r) return null;
  const warnings =
    r.warnings && r.warning_count !== undefined
      ? { warnings: r.warnings, warning_count: r.warning_count }
      : {};
  if ('content' in r) return { type: r.type, content: r.content, ...warnings };
  try {
    return { type: r.type, content: unpackText(r.packed), ...warnings };
  } catch {
    return null;
  }
}

const toDetail = (d: DeliveryDoc): DeliveryDetail => ({
  ...toRecord(d),
  history: Array.isArray(d.history) ? d.history.slice(-DELIVERY_HISTORY_MAX) : [],
  rendered: renderedOf(d.rendered),
  rendered_dropped_at: d.rendered_dropped_at ?? null,
});

/** What a list or a single read leaves out: the replay input and the per-message detail. */
const LIST_PROJECTION = { job: 0, history: 0, rendered: 0, rendered_dropped_at: 0 } as const;

/** Only the filter fields that were given (an absent field must not match `null`). */
function filterOf(f: DeliveryFilter): Record<string, unknown> {
  const q: Record<string, unknown> = {};
  if (f.status !== undefined) q.status = f.status;
  if (f.bot_id !== undefined) q.bot_id = f.bot_id;
  if (f.pipe_id !== undefined) q.pipe_id = f.pipe_id;
  if (f.reason !== undefined) q.reason = f.reason;
  if (f.waiting !== undefined) q.retry_at = f.waiting ? mongoose.trusted({ $ne: null }) : null;
  if (f.replayed) q.replays = mongoose.trusted({ $gt: 0 });
  if (f.since !== undefined || f.until !== undefined) {
    q.created_at = mongoose.trusted({
      ...(f.since !== undefined ? { $gte: f.since } : {}),
      ...(f.until !== undefined ? { $lte: f.until } : {}),
    });
  }
  return q;
}

/** Which dead messages a bulk replay looks at: a filter, and those dead at or before `died_before` (ms). */
export interface ReplayableFilter extends Omit<DeliveryFilter, 'status'> {
  readonly died_before: number;
}

/** Dead messages that can still be replayed: failed by `died_before`, with their replay input kept. */
const replayableDead = ({ died_before, ...f }: ReplayableFilter) => ({
  ...filterOf(f),
  status: 'failed',
  job: mongoose.trusted({ $ne: null }),
  updated_at: mongoose.trusted({ $lte: died_before }),
});

export function createDeliveryStore({ Delivery }: DeliveryModels) {
  return {
    async get(msgId: string): Promise<DeliveryRecord | null> {
      const d = await Delivery.findById(msgId, LIST_PROJECTION).lean<DeliveryDoc>();
      return d ? toRecord(d) : null;
    },

    /** One record with its history and the message as sent (one message's page). */
    async detail(msgId: string): Promise<DeliveryDetail | null> {
      const d = await Delivery.findById(msgId, { job: 0 }).lean<DeliveryDoc>();
      return d ? toDetail(d) : null;
    },

    /** Which of these messages have a settled (`sent` or `failed`) record (one query; ids only). */
    async settledAmong(msgIds: readonly string[]): Promise<Set<string>> {
      if (msgIds.length === 0) return new Set();
      const docs = await Delivery.find(
        {
          _id: mongoose.trusted({ $in: [...msgIds] }),
          status: mongoose.trusted({ $in: ['sent', 'failed'] }),
        },
        { _id: 1 },
      ).lean<Array<{ _id: string }>>();
      return new Set(docs.map((d) => d._id));
    },

    /** The status of each of these messages that has a record (one query; for polls over many). */
    async statusesOf(msgIds: readonly string[]): Promise<Map<string, DeliveryRecord['status']>> {
      if (msgIds.length === 0) return new Map();
      const docs = await Delivery.find(
        { _id: mongoose.trusted({ $in: [...msgIds] }) },
        { _id: 1, status: 1 },
      ).lean<Array<{ _id: string; status: DeliveryRecord['status'] }>>();
      return new Map(docs.map((d) => [d._id, d.status]));
    },

    /** The job kept for replay, or null (never failed, replayed already, or expired). */
    async getReplayJob(msgId: string): Promise<Record<string, unknown> | null> {
      const d = await Delivery.findById(msgId).lean<DeliveryDoc>();
      return d?.job ?? null;
    },

    /**
     * Creates or updates one message's record, and appends `event` to its history in the same
     * write. Callers are the worker holding the job's lock or a replay holding the record lock,
     * so there is one writer per record at a time (FerretDB v1's read-then-write updates are
     * safe under that, and so is the history's cap below). `createdAt`: the record's created_at
     * should this write create it (when the message was accepted); `now` when not given.
     */
    async save(
      msgId: string,
      ids: DeliveryRecordIds,
      changes: DeliveryChanges,
      now: number,
      event?: DeliveryEvent,
      createdAt: number = now,
    ): Promise<void> {
      const update = {
        $set: { ...ids, ...changes, updated_at: now },
        $setOnInsert: { created_at: createdAt },
      };
      if (!event) {
        await Delivery.updateOne({ _id: msgId }, update, { upsert: true });
        return;
      }
      // Only _id in the filter: FerretDB v1 scans the collection for any other condition, which
      // held up every wait's record write (and with it the put-off) by seconds under load.
      // MongoDB caps the stored history with $slice; FerretDB v1 ignores it, and reads cap it.
      await Delivery.updateOne(
        { _id: msgId },
        { ...update, $push: { history: { $each: [event], $slice: -DELIVERY_HISTORY_MAX } } },
        { upsert: true },
      );
    },

    /**
     * Inserts records of messages that have none yet, in one round-trip (unordered). Returns the
     * msg_ids that already had a record (duplicate key): the caller updates those one by one.
     */
    async insertNew(
      records: ReadonlyArray<{
        msg_id: string;
        ids: DeliveryRecordIds;
        changes: DeliveryChanges;
        /** The record's first history entry. */
        event?: DeliveryEvent;
        /** When the message was accepted, in ms; `now` when not given. */
        created_at?: number | undefined;
      }>,
      now: number,
    ): Promise<string[]> {
      if (records.length === 0) return [];
      const docs = records.map((r) => ({
        _id: r.msg_id,
        template_id: null,
        event: null,
        ...r.ids,
        reason: null,
        code: null,
        message: null,
        detail: null,
        attempts: 0,
        replays: 0,
        sent_at: null,
        upstream_msg_id: null,
        folded_into: null,
        retry_at: null,
        not_permissions_mention: [],
        job: null,
        rendered: null,
        ...r.changes,
        history: r.event ? [r.event] : [],
        created_at: r.created_at ?? now,
        updated_at: now,
      }));
      try {
        await Delivery.collection.insertMany(docs as never[], { ordered: false });
        return [];
      } catch (err) {
        if (err instanceof mongoose.mongo.MongoBulkWriteError) {
          const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
          // Only "these already exist" is an answer; a bulk error with no write errors (the
          // connection dropped mid-insert) or with any other kind means records were not stored.
          const inserted = err.result?.insertedCount ?? 0;
          if (
            errors.length > 0 &&
            errors.every((e) => e.code === DUPLICATE_KEY) &&
            inserted + errors.length === docs.length
          ) {
            return errors.map((e) => docs[e.index]?._id).filter((id): id is string => id !== undefined);
          }
        }
        throw err;
      }
    },

    /** Records matching `filter`, by `req.sort` (DELIVERY_SORT_FIELDS), _id breaking ties. */
    async list(filter: DeliveryFilter, req: PageRequest): Promise<Page<DeliveryRecord>> {
      const q = filterOf(filter);
      const field = (DELIVERY_SORT_FIELDS as readonly string[]).includes(req.sort.field)
        ? req.sort.field
        : 'updated_at';
      const [docs, total] = await Promise.all([
        Delivery.find(q, LIST_PROJECTION)
          .sort({ [field]: req.sort.dir, _id: req.sort.dir })
          .skip(skipOf(req))
          .limit(req.pageSize)
          .lean<DeliveryDoc[]>(),
        Delivery.countDocuments(q),
      ]);
      return { items: docs.map(toRecord), total };
    },

    count(filter: DeliveryFilter): Promise<number> {
      return Delivery.countDocuments(filterOf(filter));
    },

    /** Dead (failed) messages by the reason they died of, most first. */
    async failedByReason(): Promise<Array<{ reason: string | null; count: number }>> {
      const rows = await Delivery.aggregate<{ _id: string | null; count: number }>([
        { $match: { status: 'failed' } },
        { $group: { _id: '$reason', count: { $sum: 1 } } },
      ]);
      return rows
        .map((r) => ({ reason: r._id ?? null, count: r.count }))
        .sort((a, b) => b.count - a.count || String(a.reason).localeCompare(String(b.reason)));
    },

    /**
     * Ids of dead messages that can still be replayed (their input is kept), oldest death
     * first, at most `limit` (1 or more). For replays in bulk.
     */
    async replayableDeadIds(filter: ReplayableFilter, limit: number): Promise<string[]> {
      const docs = await Delivery.find(replayableDead(filter), { _id: 1 })
        .sort({ updated_at: 1, _id: 1 })
        .limit(Math.max(1, limit))
        .lean<{ _id: string }[]>();
      return docs.map((d) => d._id);
    },

    /** How many dead messages matching `filter` can still be replayed. */
    countReplayableDead(filter: ReplayableFilter): Promise<number> {
      return Delivery.countDocuments(replayableDead(filter));
    },

    /**
     * Replayed messages (replays > 0) still `queued` and untouched since before `before` (ms),
     * oldest first, at most `limit`: where a replay may have been cut off between its record
     * and its job (src/workers/recovery/dead-jobs.ts decides).
     */
    async staleReplays(before: number, limit: number): Promise<DeliveryRecord[]> {
      const docs = await Delivery.find(
        {
          status: 'queued',
          replays: mongoose.trusted({ $gt: 0 }),
          updated_at: mongoose.trusted({ $lt: before }),
        },
        LIST_PROJECTION,
      )
        .sort({ updated_at: 1 })
        .limit(limit)
        .lean<DeliveryDoc[]>();
      return docs.map(toRecord);
    },

    /**
     * Drops the message as sent from records sent before `before` (ms), noting `now` as when;
     * returns how many. Index {status, sent_at}.
     */
    async dropRendered(before: number, now: number): Promise<number> {
      const r = await Delivery.updateMany(
        {
          status: 'sent',
          sent_at: mongoose.trusted({ $lt: before }),
          rendered: mongoose.trusted({ $ne: null }),
        },
        { $set: { rendered: null, rendered_dropped_at: now } },
      );
      return r.modifiedCount;
    },

    /** Drops the replay input of messages dead since before `before` (ms); returns how many. */
    async dropReplayJobs(before: number): Promise<number> {
      const r = await Delivery.updateMany(
        {
          status: 'failed',
          updated_at: mongoose.trusted({ $lt: before }),
          job: mongoose.trusted({ $ne: null }),
        },
        { $set: { job: null } },
      );
      return r.modifiedCount;
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
