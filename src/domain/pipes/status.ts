import { DEFAULT_LANG, DependencyError, type Lang, NotFoundError } from '../../errors/index.js';
import type { JobSnapshot } from '../../queue/job-snapshot.js';
import { MAX_STALLED_COUNT, type PipeJob } from '../../queue/pipe-messages.js';
import type { DeliveryPart, DeliveryRecord, DeliveryStatus } from '../../store/index.js';
import { catalogueFailure, deadJobAttempts, deadJobFailure } from '../deliveries/dead-failure.js';
import { failureMessage, type StoredFailure } from '../deliveries/failure-text.js';
import { isSettled, statusOfJobState } from '../deliveries/lifecycle.js';
import { REASON } from '../deliveries/reasons.js';
import { currentWait, type WaitNote } from '../deliveries/wait-notes.js';
import type { PipeDeps } from './runtime.js';

/** Who asks: a pipe (its own messages) or a bot (the messages of all its pipes). */
export type StatusAsker = { readonly pipe_id: string } | { readonly bot_id: string };

export interface PipeMessageStatus {
  readonly msg_id: string;
  readonly status: DeliveryStatus;
  /** Delivery attempts made so far. */
  readonly attempts: number;
  /** When the message was accepted, in ms (null when only a worker's record remains). */
  readonly msg_timestamp: number | null;
  /** When it was sent, in ms; null until then. */
  readonly sent_at: number | null;
  /** The id the relay target gave the message; null until sent, and for the store sink. */
  readonly upstream_msg_id: string | null;
  /**
   * A folded message (docs/pipes.md, "Grouping"): the msg_id of the message that carried it, its
   * group's digest or the message its update edited (whose status says when that went out).
   */
  readonly folded_into: string | null;
  /**
   * Every message it was sent as, in order, once sent: itself, or the parts of a message split
   * over several (docs/pipes.md, "Messages that always fit"; the first is msg_id, and its
   * upstream_msg_id the one above). [] until sent.
   */
  readonly parts: readonly DeliveryPart[];
  /** While rate_limited: when the next try is due, in ms. */
  readonly retry_at: number | null;
  /**
   * Group mentions (`all`, `here`) the rendered message held but the bot may not make: they were
   * neutralised. Known once the message was rendered; [] before.
   */
  readonly not_permissions_mention: readonly string[];
  /** The template the message was accepted with (its pipe's, or its event's route's); null: none. */
  readonly template_id: string | null;
  /** The event the request named, on a pipe that routes by event; null otherwise. */
  readonly event: string | null;
  /** The last failure (or retry reason), its message in the reader's language; null when none. */
  readonly error: {
    readonly reason: string | null;
    readonly code: number | null;
    readonly message: string | null;
  } | null;
}

/** The template and event of a message: from its job, or, once the queue dropped it, its record. */
function routeOf(
  data: PipeJob | undefined,
  record: DeliveryRecord | null | undefined,
): { template_id: string | null; event: string | null } {
  if (data) return { template_id: data.template_id, event: data.event ?? null };
  return { template_id: record?.template_id ?? null, event: record?.event ?? null };
}

const owns = (asker: StatusAsker, rec: { pipe_id: string; bot_id: string }): boolean =>
  'pipe_id' in asker ? asker.pipe_id === rec.pipe_id : asker.bot_id === rec.bot_id;

/** What a completed job returns (the worker's sent outcome), as far as status needs it. */
interface SentReturn {
  readonly sent_at?: number;
  readonly attempts?: number;
  readonly upstream_msg_id?: string | null;
  readonly not_permissions_mention?: readonly string[];
  readonly folded_into?: string;
  readonly parts?: readonly DeliveryPart[];
}

/** A failure as the status shows it: its message worded in `lang` (failure-text.ts). */
const errorOf = (f: StoredFailure, lang: Lang): PipeMessageStatus['error'] => ({
  reason: f.reason,
  code: f.code,
  message: failureMessage(f, lang),
});

/** A settled record: what the worker (or the sweep) wrote last about the message. */
const settled = (r: DeliveryRecord | null): boolean => r !== null && isSettled(r.status);

/**
 * Where a pipe message stands. Read from two places that cannot be read at one moment: the
 * workers' delivery record (collection `deliveries`, keyed by msg_id) and the BullMQ job, whose
 * state and fields are read in one step (readJobSnapshot), so that a terminal state always comes
 * with its details. The order the worker writes them in decides which wins:
 * - sent: the job completes (its return value holds the outcome) before its `sent` record is
 *   written (write-behind, src/workers/recovery/sent-log.ts): a completed job means sent, with the return
 *   value's sent_at and attempts, whatever an older record says.
 * - failed: the `failed` record is written before the job fails. A failed job read with a record
 *   that is not settled means the record read began before the write: it is read again. Still
 *   none (the recording process died, the record was lost): the job's failedReason answers, as
 *   the dead-job sweep will record it (dead-failure.ts).
 * - otherwise the record, and before any record the job's state (queued).
 * Another pipe's or bot's message is "not found", like a message that does not exist.
 * A failure's message is worded in `lang`, the reader's language.
 */
export async function pipeMessageStatus(
  deps: PipeDeps,
  msgId: string,
  asker: StatusAsker,
  lang: Lang = DEFAULT_LANG,
): Promise<PipeMessageStatus> {
  // The database away is an answer too: see below. Anything else is a bug, and says so.
  const readRecord = () =>
    deps.store.deliveries.get(msgId).catch((err: unknown) => {
      if (err instanceof DependencyError) return err;
      throw err;
    });
  const [found, job, wait] = await Promise.all([
    readRecord(),
    deps.pipeRuntime.messages.snapshot(msgId),
    currentWait(deps.redis, deps.config.redisPrefix, msgId, deps.now()),
  ]);
  const data = job?.data;
  const ownJob = job && data && owns(asker, data) ? job : null;
  if (found instanceof DependencyError) {
    // Without the record, only a completed job answers for certain (sent); a waiting, delayed
    // or failed one may have a record that says more (rate_limited, a retry's reason, why it
    // died), and no job at all may be a message whose job the queue no longer keeps. So 503.
    if (ownJob?.state === 'completed') return sentByJob(msgId, ownJob);
    if (wait && ownJob?.data) return waiting(msgId, wait, ownJob.data, [], lang);
    throw found;
  }
  let record = found;
  if (record && !owns(asker, record)) throw new NotFoundError('message');
  if (job?.state === 'completed' && record?.status !== 'sent' && record?.status !== 'folded') {
    if (!record && !ownJob) throw new NotFoundError('message');
    return sentByJob(msgId, job);
  }
  if (job?.state === 'failed' && !settled(record)) {
    const again = await readRecord();
    if (again instanceof DependencyError) throw again;
    record = again;
    if (record && !owns(asker, record)) throw new NotFoundError('message');
    // A record queued again by a replay after the job died is the replay under way (it swaps
    // the failed job for a new one next): the record answers.
    const replaying = record !== null && record.replays > 0 && (job.finishedOn ?? 0) <= record.updated_at;
    if (!settled(record) && !replaying && ownJob?.data) {
      return failedByJob(msgId, ownJob, ownJob.data, record, lang);
    }
  }
  // A wait the worker noted in Redis is newer than a record that is not final: the record's own
  // write may not have landed yet (wait-notes.ts).
  if (wait && ownJob?.data && record?.status !== 'sent' && record?.status !== 'failed') {
    return waiting(msgId, wait, ownJob.data, record?.not_permissions_mention ?? [], lang);
  }
  if (record) {
    const failed = record.reason !== null || record.code !== null || record.message !== null;
    // A wait that is over: the message is back in the queue or being delivered. (Workers write
    // no record when the wait ends; one that is refused again writes a new retry_at.)
    // Likewise a retry's wait (a queued record with retry_at): once over, there is no time to show.
    const waitOver = record.retry_at !== null && record.retry_at <= deps.now();
    return {
      msg_id: msgId,
      status: waitOver && record.status === 'rate_limited' ? 'queued' : record.status,
      attempts: record.attempts,
      msg_timestamp: data?.accepted_at ?? null,
      sent_at: record.sent_at,
      upstream_msg_id: record.upstream_msg_id,
      folded_into: record.folded_into,
      parts: partsOf(msgId, record.status === 'sent', record.upstream_msg_id, record.parts),
      retry_at: waitOver ? null : record.retry_at,
      not_permissions_mention: record.not_permissions_mention,
      ...routeOf(ownJob?.data, record),
      error: failed ? errorOf(record, lang) : null,
    };
  }
  // Only a job still in the queue answers alone here (a completed or failed one was read above,
  // with the details its fields or record hold).
  const status = ownJob ? statusOfJobState(ownJob.state) : undefined;
  if (!ownJob || status !== 'queued') throw new NotFoundError('message');
  return {
    msg_id: msgId,
    status,
    attempts: ownJob.attemptsMade,
    msg_timestamp: ownJob.data?.accepted_at ?? null,
    sent_at: null,
    upstream_msg_id: null,
    folded_into: null,
    parts: [],
    retry_at: null,
    not_permissions_mention: [],
    ...routeOf(ownJob.data, null),
    error: null,
  };
}

/** The messages a sent message went as: its parts, or itself alone. */
function partsOf(
  msgId: string,
  sent: boolean,
  upstreamMsgId: string | null,
  parts: readonly DeliveryPart[] | null | undefined,
): readonly DeliveryPart[] {
  if (!sent) return [];
  return Array.isArray(parts) && parts.length > 0
    ? parts
    : [{ msg_id: msgId, upstream_msg_id: upstreamMsgId }];
}

/** A completed job's view: sent, with the worker's outcome (its return value). */
function sentByJob(msgId: string, job: JobSnapshot): PipeMessageStatus {
  const sent = (job.returnvalue ?? {}) as SentReturn;
  const foldedInto = typeof sent.folded_into === 'string' ? sent.folded_into : null;
  return {
    msg_id: msgId,
    status: foldedInto === null ? 'sent' : 'folded',
    folded_into: foldedInto,
    attempts: sent.attempts ?? job.attemptsMade,
    msg_timestamp: job.data?.accepted_at ?? null,
    sent_at: sent.sent_at ?? job.finishedOn ?? null,
    upstream_msg_id: sent.upstream_msg_id ?? null,
    parts: partsOf(msgId, true, sent.upstream_msg_id ?? null, sent.parts),
    retry_at: null,
    not_permissions_mention: Array.isArray(sent.not_permissions_mention) ? sent.not_permissions_mention : [],
    ...routeOf(job.data, null),
    error: null,
  };
}

/**
 * A failed job without its failed record: the reason it died of, as the dead-job sweep will
 * record it, and never the text of some other error (a death no reason names is INTERNAL).
 */
function failedByJob(
  msgId: string,
  job: JobSnapshot,
  data: PipeJob,
  record: DeliveryRecord | null,
  lang: Lang,
): PipeMessageStatus {
  const stalled = job.stalledCounter > MAX_STALLED_COUNT;
  const failure =
    deadJobFailure({ failedReason: job.failedReason, stalled, data }, record) ??
    catalogueFailure(REASON.INTERNAL, data);
  return {
    msg_id: msgId,
    status: 'failed',
    attempts: deadJobAttempts(job.attemptsMade, job.stalledCounter, stalled),
    msg_timestamp: data.accepted_at,
    sent_at: null,
    upstream_msg_id: null,
    folded_into: null,
    parts: [],
    retry_at: null,
    not_permissions_mention: record?.not_permissions_mention ?? [],
    ...routeOf(data, record),
    error: failure ? errorOf(failure, lang) : null,
  };
}

/** A message waiting as its worker noted (a rate limit, or the backoff before a retry). */
function waiting(
  msgId: string,
  wait: WaitNote,
  data: PipeJob,
  notPermissionsMention: readonly string[],
  lang: Lang,
): PipeMessageStatus {
  const failed = wait.reason !== null || wait.code !== null || wait.message !== null;
  return {
    msg_id: msgId,
    status: wait.status,
    attempts: wait.attempts,
    msg_timestamp: data.accepted_at,
    sent_at: null,
    upstream_msg_id: null,
    folded_into: null,
    parts: [],
    retry_at: wait.retry_at,
    not_permissions_mention: notPermissionsMention,
    ...routeOf(data, null),
    error: failed ? errorOf(wait, lang) : null,
  };
}
