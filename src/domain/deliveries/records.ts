import {
  DeliveryError,
  type ErrorParams,
  HeraldError,
  newErrorId,
  type ParamValue,
} from '../../errors/index.js';
import type {
  DeliveryChanges,
  DeliveryEvent,
  DeliveryPart,
  DeliveryRecord,
  DeliveryRecordIds,
  DeliveryStage,
  RenderWarnings,
  StoredRendered,
} from '../../store/index.js';
import { packText } from '../../text/packed-text.js';
import type { Deps } from '../deps.js';
import { REASON } from './reasons.js';

/**
 * How long a dead (failed) message keeps the input that replay needs, in ms: 7 days, the same
 * as the queue keeps failed jobs. After that the record stays (reason and all) but cannot be
 * replayed.
 */
export const DEAD_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** The ids every record carries: what the dead-letter list filters on. */
export interface DeliveryIds {
  readonly msg_id: string;
  readonly bot_id: string;
  readonly pipe_id: string;
  readonly channel_id: string;
  /**
   * When the message was accepted (its job's accepted_at), in ms: a record's created_at, so that
   * "accepted" and the since/until filters mean acceptance, not the record's first write (which
   * may come long after: a rate wait, a paused worker, the sent log's flush). Absent (sent-log
   * entries from before it): the first write's time.
   */
  readonly accepted_at?: number;
  /** The template the message was accepted with (its job's template_id); absent: not known here. */
  readonly template_id?: string | null;
  /** Its event, on a pipe that routes by event (its job's `event`); absent: none, or not known. */
  readonly event?: string | null;
}

/** What a record is filed under: the ids, and the template and event where they are known. */
function recordIds(ids: DeliveryIds): DeliveryRecordIds {
  const out: { -readonly [K in keyof DeliveryRecordIds]: DeliveryRecordIds[K] } = {
    bot_id: ids.bot_id,
    pipe_id: ids.pipe_id,
    channel_id: ids.channel_id,
  };
  if (ids.template_id !== undefined) out.template_id = ids.template_id;
  if (ids.event !== undefined) out.event = ids.event;
  return out;
}

/** The ids a job's record is filed under (its template and event included). */
export function jobIds(data: {
  readonly msg_id: string;
  readonly bot_id: string;
  readonly pipe_id: string;
  readonly channel_id: string;
  readonly accepted_at: number;
  readonly template_id: string | null;
  readonly event?: string | null | undefined;
}): DeliveryIds {
  return {
    msg_id: data.msg_id,
    bot_id: data.bot_id,
    pipe_id: data.pipe_id,
    channel_id: data.channel_id,
    accepted_at: data.accepted_at,
    template_id: data.template_id,
    event: data.event ?? null,
  };
}

/** What a history entry may carry besides its stage and time; null and undefined are left out. */
export interface EventFields {
  readonly reason?: string | null;
  readonly code?: number | null;
  readonly retry_at?: number | null;
  readonly attempt?: number | null;
}

/** A history entry: `stage` at `at` (ms), with those of `fields` that are set. */
export function deliveryEvent(stage: DeliveryStage, at: number, fields: EventFields = {}): DeliveryEvent {
  const event: { -readonly [K in keyof DeliveryEvent]: DeliveryEvent[K] } = { status: stage, at };
  if (fields.reason != null) event.reason = fields.reason;
  if (fields.code != null) event.code = fields.code;
  if (fields.retry_at != null) event.retry_at = fields.retry_at;
  if (fields.attempt != null) event.attempt = fields.attempt;
  return event;
}

/** Writes a transition: the record's new fields and its history entry, in one write. */
/** The record's updated_at is its event's instant: one clock read, so the two never differ. */
const save = (deps: Deps, ids: DeliveryIds, changes: DeliveryChanges, event: DeliveryEvent) =>
  deps.store.deliveries.save(ids.msg_id, recordIds(ids), changes, event.at, event, ids.accepted_at);

export function getDelivery(deps: Deps, msgId: string): Promise<DeliveryRecord | null> {
  return deps.store.deliveries.get(msgId);
}

/** The bot's budget is empty (or the relay said 429): the message waits until `retryAt` (ms). */
export function markRateLimited(deps: Deps, ids: DeliveryIds, retryAt: number, attempts: number) {
  return save(
    deps,
    ids,
    { status: 'rate_limited', retry_at: retryAt, attempts },
    deliveryEvent('rate_limited', deps.now(), { retry_at: retryAt, attempt: attempts }),
  );
}

export interface SentOutcome {
  /** When the sink took it; for a folded message, when it was folded (or its edit made). */
  readonly sent_at: number;
  /** The relay's id of the message (of its first part, for a message split over several). */
  readonly upstream_msg_id: string | null;
  readonly attempts: number;
  readonly not_permissions_mention: string[];
  /**
   * Present on a message another one carried (docs/pipes.md, "Grouping"): that message's msg_id,
   * its group's digest or the carrier its update edited. Recorded as status `folded`.
   */
  readonly folded_into?: string;
  /** Only for a message split over several (render/fit.ts): every part sent, in order. */
  readonly parts?: readonly DeliveryPart[];
}

/** A sent message as the sent log carries it to the store: its outcome and what was sent. */
export interface SentItem {
  readonly ids: DeliveryIds;
  readonly outcome: SentOutcome;
  /** The message as sent (keptRendered); absent where the run that sent it did not know it. */
  readonly rendered?: StoredRendered | null;
}

/**
 * The message as its record keeps it: packed when long (src/text/packed-text.ts). `packed`:
 * what packText made of `content` already (the render pool did, on a render thread; null: keep
 * it as it is), so that it is not packed again here.
 */
export function keptRendered(
  type: number,
  content: string,
  packed?: string | null,
  warnings?: RenderWarnings,
): StoredRendered {
  const p = packed === undefined ? packText(content) : packed;
  // kept only when there were some: a clean render's record stays as it was
  const w = warnings && warnings.warning_count > 0 ? warnings : {};
  return p === null ? { type, content, ...w } : { type, packed: p, ...w };
}

/** What a sent record holds: the outcome, the message, and no trace of earlier waits or failures. */
const sentChanges = (i: SentItem): DeliveryChanges => ({
  ...i.outcome,
  status: i.outcome.folded_into === undefined ? 'sent' : 'folded',
  folded_into: i.outcome.folded_into ?? null,
  retry_at: null,
  reason: null,
  code: null,
  message: null,
  params: null,
  detail: null,
  job: null,
  rendered: i.rendered ?? null,
  rendered_dropped_at: null,
});

const sentEvent = (o: SentOutcome): DeliveryEvent =>
  deliveryEvent(o.folded_into === undefined ? 'sent' : 'folded', o.sent_at, { attempt: o.attempts });

/**
 * Records many sent messages at once: one insert for those without a record (the usual case),
 * then an update for each that had one (it waited on a rate limit, was retried or replayed).
 */
export async function markSentMany(deps: Deps, items: ReadonlyArray<SentItem>): Promise<void> {
  const existing = await deps.store.deliveries.insertNew(
    items.map((i) => ({
      msg_id: i.ids.msg_id,
      ids: recordIds(i.ids),
      changes: sentChanges(i),
      event: sentEvent(i.outcome),
      created_at: i.ids.accepted_at,
    })),
    deps.now(),
  );
  const again = new Set(existing);
  await Promise.all(
    items
      .filter((i) => again.has(i.ids.msg_id))
      .map((i) => save(deps, i.ids, sentChanges(i), sentEvent(i.outcome))),
  );
}

/**
 * What a failure records: reason code, catalogue code, the English message, the catalogue
 * entry's parameters (reads word the message from them in the reader's language:
 * failure-text.ts) and detail.
 */
export interface RecordedFailure {
  readonly reason: string;
  readonly code: number;
  readonly message: string;
  readonly params: ErrorParams | null;
  readonly detail: Readonly<Record<string, unknown>> | null;
}

/**
 * The longest text a failure record keeps of its message, of each parameter and of each text in
 * its detail, in UTF-16 units. Render errors quote what the template was given (an unknown
 * timezone, an unparsable date), so a sender's megabyte would otherwise be stored twice per
 * record: in the message and in the parameter it was made from.
 */
export const MAX_RECORDED_TEXT = 1_000;

/** `text` cut to MAX_RECORDED_TEXT with an ellipsis, never between a surrogate pair's halves. */
function recordedText(text: string): string {
  if (text.length <= MAX_RECORDED_TEXT) return text;
  let end = MAX_RECORDED_TEXT - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

function recordedParam(v: ParamValue): ParamValue {
  if (typeof v === 'string') return recordedText(v);
  if (typeof v === 'number') return v;
  return { 'zh-CN': recordedText(v['zh-CN']), 'en-US': recordedText(v['en-US']) };
}

const recordedParams = (params: ErrorParams): ErrorParams =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, recordedParam(v)]));

/** The detail's top-level texts cut (an excerpt of a long template line, a quoted value). */
const recordedDetail = (detail: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(detail).map(([k, v]) => [k, typeof v === 'string' ? recordedText(v) : v]),
  );

/**
 * A failure as it is recorded. Only Herald errors get this far: an unexpected error is made an
 * internalFailure first (asDeliveryFailure), so that its text is never recorded (pipemsg-status
 * shows the record to pipe senders). Texts are cut to MAX_RECORDED_TEXT.
 */
export function describeFailure(err: HeraldError): RecordedFailure {
  if (err instanceof DeliveryError) {
    return {
      reason: err.reason,
      code: err.code,
      message: recordedText(err.message),
      params: recordedParams(err.params),
      detail: err.data ? recordedDetail(err.data) : null,
    };
  }
  // Render, card and template errors: their own key is the reason, with line and excerpt.
  const reason = err.key === 'DEPENDENCY_DOWN' ? REASON.DEPENDENCY_DOWN : err.key;
  return {
    reason,
    code: err.code,
    message: recordedText(err.message),
    params: recordedParams(err.params),
    detail: recordedDetail({ code: err.code, ...err.data }),
  };
}

/**
 * An unexpected error (a bug) as a delivery failure: retried like any other, and recorded with
 * a generic message and an error id instead of the error's text. The caller logs the error
 * (message and stack) under the same id, `data.error_id`.
 */
export function internalFailure(err: unknown): DeliveryError {
  const errorId = newErrorId();
  return new DeliveryError(
    REASON.INTERNAL,
    { error_id: errorId },
    { cause: err, data: { error_id: errorId } },
  );
}

/** A failure as it is recorded: a Herald error as it is, anything else as internalFailure. */
export const asDeliveryFailure = (err: unknown): HeraldError =>
  err instanceof HeraldError ? err : internalFailure(err);

/**
 * An attempt failed and will be retried: the message is queued again, with the last reason. `at`
 * dates the event (when the retry was decided).
 */
export function markRetrying(
  deps: Deps,
  ids: DeliveryIds,
  err: HeraldError,
  attempts: number,
  retryAt: number,
  at = deps.now(),
) {
  const f = describeFailure(err);
  return save(
    deps,
    ids,
    { status: 'queued', ...f, attempts, retry_at: retryAt },
    deliveryEvent('retrying', at, {
      reason: f.reason,
      code: f.code,
      retry_at: retryAt,
      attempt: attempts,
    }),
  );
}

/** The message is dead. `job` is kept (DEAD_RETENTION_MS) so that an operator can replay it. */
export function markFailed(
  deps: Deps,
  ids: DeliveryIds,
  err: HeraldError,
  attempts: number,
  job: Readonly<Record<string, unknown>> | null,
  notPermissionsMention: string[] = [],
) {
  return markDead(deps, ids, describeFailure(err), attempts, job, notPermissionsMention);
}

/** markFailed with a failure already described (a dead job's, recovered by the sweep). */
export function markDead(
  deps: Deps,
  ids: DeliveryIds,
  failure: RecordedFailure,
  attempts: number,
  job: Readonly<Record<string, unknown>> | null,
  notPermissionsMention: string[] = [],
) {
  return save(
    deps,
    ids,
    {
      status: 'failed',
      ...failure,
      attempts,
      retry_at: null,
      job,
      not_permissions_mention: notPermissionsMention,
    },
    deliveryEvent('failed', deps.now(), { reason: failure.reason, code: failure.code, attempt: attempts }),
  );
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Drops the message as sent from records sent more than RENDERED_RETENTION_DAYS ago (0: all
 * sent before now); run with expireReplayInput. The record stays, noting when it was dropped.
 */
export function expireRendered(deps: Deps): Promise<number> {
  const now = deps.now();
  return deps.store.deliveries.dropRendered(now - deps.config.renderedRetentionDays * DAY_MS, now);
}

/** Drops replay input older than DEAD_RETENTION_MS; run periodically by the worker. */
export function expireReplayInput(deps: Deps): Promise<number> {
  return deps.store.deliveries.dropReplayJobs(deps.now() - DEAD_RETENTION_MS);
}
