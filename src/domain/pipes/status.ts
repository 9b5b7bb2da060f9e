import { DependencyError, NotFoundError } from '../../errors/index.js';
import type { PipeJob } from '../../queue/pipe-messages.js';
import { asRedisDependencyError } from '../../ratelimit/redis-errors.js';
import type { DeliveryStatus } from '../../store/index.js';
import { isReasonCode } from '../deliveries/reasons.js';
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
  /** While rate_limited: when the next try is due, in ms. */
  readonly retry_at: number | null;
  /**
   * Group mentions (`all`, `here`) the rendered message held but the bot may not make: they were
   * neutralised. Known once the message was rendered; [] before.
   */
  readonly not_permissions_mention: readonly string[];
  /** The last failure (or retry reason); null when none. */
  readonly error: {
    readonly reason: string | null;
    readonly code: number | null;
    readonly message: string | null;
  } | null;
}

const owns = (asker: StatusAsker, rec: { pipe_id: string; bot_id: string }): boolean =>
  'pipe_id' in asker ? asker.pipe_id === rec.pipe_id : asker.bot_id === rec.bot_id;

/** BullMQ's job states as a delivery status, while no worker has written a record (a completed job: sentByJob). */
const JOB_STATE: Readonly<Record<string, DeliveryStatus>> = {
  waiting: 'queued',
  'waiting-children': 'queued',
  prioritized: 'queued',
  delayed: 'queued',
  active: 'queued',
  failed: 'failed',
};

/** What a completed job returns (the worker's sent outcome), as far as status needs it. */
interface SentReturn {
  readonly sent_at?: number;
  readonly attempts?: number;
  readonly upstream_msg_id?: string | null;
  readonly not_permissions_mention?: readonly string[];
}

/**
 * Where a pipe message stands. The workers' delivery record (collection `deliveries`, keyed by
 * msg_id) wins, except that a completed job means sent even while its record still says
 * otherwise: workers write `sent` records behind (src/workers/sent-log.ts), so for a moment
 * the job knows first. Before a worker has written any record, the BullMQ job's state answers.
 * Another pipe's or bot's message is "not found", like a message that does not exist.
 */
export async function pipeMessageStatus(
  deps: PipeDeps,
  msgId: string,
  asker: StatusAsker,
): Promise<PipeMessageStatus> {
  const [found, job, wait] = await Promise.all([
    // The database away is an answer too: see below. Anything else is a bug, and says so.
    deps.store.deliveries.get(msgId).catch((err: unknown) => {
      if (err instanceof DependencyError) return err;
      throw err;
    }),
    deps.pipeRuntime.queue.getJob(msgId).catch((err: unknown) => {
      throw asRedisDependencyError(err);
    }),
    currentWait(deps.redis, deps.config.redisPrefix, msgId, deps.now()),
  ]);
  const data: PipeJob | undefined = job?.data;
  const stateOf = async () =>
    job
      ? job.getState().catch((err: unknown) => {
          throw asRedisDependencyError(err);
        })
      : undefined;
  if (found instanceof DependencyError) {
    // Without the record, only a completed job answers for certain (sent); a waiting, delayed
    // or failed one may have a record that says more (rate_limited, a retry's reason, why it
    // died), and no job at all may be a message whose job the queue no longer keeps. So 503.
    if (job && data && owns(asker, data) && (await stateOf()) === 'completed') {
      return sentByJob(msgId, job.returnvalue, job.attemptsMade, job.finishedOn, data.accepted_at);
    }
    if (wait && data && owns(asker, data)) return waiting(msgId, wait, data.accepted_at, []);
    throw found;
  }
  const record = found;
  // A wait the worker noted in Redis is newer than a record that is not final: the record's own
  // write may not have landed yet (wait-notes.ts).
  if (wait && data && owns(asker, data) && record?.status !== 'sent' && record?.status !== 'failed') {
    return waiting(msgId, wait, data.accepted_at, record?.not_permissions_mention ?? []);
  }
  if (record) {
    if (!owns(asker, record)) throw new NotFoundError('message');
    if (record.status !== 'sent' && job && (await stateOf()) === 'completed') {
      return sentByJob(msgId, job.returnvalue, job.attemptsMade, job.finishedOn, data?.accepted_at ?? null);
    }
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
      retry_at: waitOver ? null : record.retry_at,
      not_permissions_mention: record.not_permissions_mention,
      error: failed ? { reason: record.reason, code: record.code, message: record.message } : null,
    };
  }
  if (!job || !data || !owns(asker, data)) throw new NotFoundError('message');
  const state = (await stateOf()) as string;
  if (state === 'completed') {
    return sentByJob(msgId, job.returnvalue, job.attemptsMade, job.finishedOn, data.accepted_at);
  }
  const status = JOB_STATE[state];
  if (!status) throw new NotFoundError('message');
  return {
    msg_id: msgId,
    status,
    attempts: job.attemptsMade,
    msg_timestamp: data.accepted_at,
    sent_at: null,
    upstream_msg_id: null,
    retry_at: null,
    not_permissions_mention: [],
    // No record yet (the dead-job sweep writes it): the reason code the worker failed it with,
    // never the text of some other error.
    error:
      status === 'failed'
        ? { reason: isReasonCode(job.failedReason) ? job.failedReason : null, code: null, message: null }
        : null,
  };
}

/** A completed job's view: sent, with the worker's outcome (its return value) where it has one. */
function sentByJob(
  msgId: string,
  returned: unknown,
  attemptsMade: number,
  finishedOn: number | undefined,
  acceptedAt: number | null,
): PipeMessageStatus {
  const sent = (returned ?? {}) as SentReturn;
  return {
    msg_id: msgId,
    status: 'sent',
    attempts: sent.attempts ?? attemptsMade,
    msg_timestamp: acceptedAt,
    sent_at: sent.sent_at ?? finishedOn ?? null,
    upstream_msg_id: sent.upstream_msg_id ?? null,
    retry_at: null,
    not_permissions_mention: Array.isArray(sent.not_permissions_mention) ? sent.not_permissions_mention : [],
    error: null,
  };
}

/** A message waiting as its worker noted (a rate limit, or the backoff before a retry). */
function waiting(
  msgId: string,
  wait: WaitNote,
  acceptedAt: number,
  notPermissionsMention: readonly string[],
): PipeMessageStatus {
  const failed = wait.reason !== null || wait.code !== null || wait.message !== null;
  return {
    msg_id: msgId,
    status: wait.status,
    attempts: wait.attempts,
    msg_timestamp: acceptedAt,
    sent_at: null,
    upstream_msg_id: null,
    retry_at: wait.retry_at,
    not_permissions_mention: notPermissionsMention,
    error: failed ? { reason: wait.reason, code: wait.code, message: wait.message } : null,
  };
}
