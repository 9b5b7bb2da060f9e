import { HeraldError, NotFoundError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { lockKey } from '../../redis/keys.js';
import type { DeliveryRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { isReplayable } from './lifecycle.js';
import { deliveryEvent } from './records.js';

export interface DeadFilter {
  readonly bot_id?: string;
  readonly pipe_id?: string;
  /** The reason code the message died with (REASON, or a render error's key). */
  readonly reason?: string;
}

/**
 * Which dead messages a bulk replay takes: a dead-list filter, and those that died at or before
 * `died_before` (ms). A message the batch replays is queued again at once, so if it dies again
 * it has died after that time, and neither this call nor a later one given the same time picks
 * it again: a loop of calls until nothing remains ends.
 */
export interface ReplayBatchFilter extends DeadFilter {
  readonly died_before: number;
}

/** Most dead messages one bulk replay sends again; an operator calls again for more. */
export const REPLAY_BATCH_MAX = 500;
/** Replays of a bulk replay in flight at once (each takes a lock and a few round trips). */
const REPLAY_BATCH_CONCURRENCY = 8;

/** What a bulk replay did: the messages queued again, those it passed over and why, and the rest. */
export interface BatchReplay {
  readonly replayed: string[];
  readonly skipped: Array<{ readonly msg_id: string; readonly error: HeraldError }>;
  /** Replayable dead messages matching the filter (died_before included) left for the next call. */
  readonly remaining: number;
}

/** The Redis lock on one message's delivery record, held by replay and by dead-job recording. */
export const deliveryLockKey = (deps: Deps, msgId: string): string =>
  lockKey(deps.config.redisPrefix, 'delivery', msgId);

/** Puts a job back on the pipe queue under its msg_id (removing the failed one first). */
export type Requeue = (msgId: string, job: Readonly<Record<string, unknown>>) => Promise<void>;

/**
 * Sends a dead message again, e.g. after the bot got its permission back. Only a failed message
 * whose replay input has not expired can be replayed; the record goes back to `queued` and the
 * worker delivers it as if it had just been accepted (same msg_id, so the timeline and the relay
 * nonce stay de-duplicated).
 */
export async function replayDelivery(deps: Deps, msgId: string, requeue: Requeue): Promise<DeliveryRecord> {
  return withRecordLock(deps.redis, deliveryLockKey(deps, msgId), async () => {
    const record = await deps.store.deliveries.get(msgId);
    if (!record) throw new NotFoundError('message');
    if (!isReplayable(record.status)) {
      throw new HeraldError('DELIVERY_NOT_DEAD', { msg_id: msgId, status: record.status });
    }
    const job = await deps.store.deliveries.getReplayJob(msgId);
    if (!job) throw new HeraldError('DELIVERY_REPLAY_EXPIRED', { msg_id: msgId });
    const ids = { bot_id: record.bot_id, pipe_id: record.pipe_id, channel_id: record.channel_id };
    // Queued before the job exists, so that a fast worker's `sent` is never overwritten; the
    // replay input stays until the message is sent (or fails again and is kept anew).
    const now = deps.now();
    await deps.store.deliveries.save(
      msgId,
      ids,
      { status: 'queued', attempts: 0, retry_at: null, replays: record.replays + 1 },
      now,
      deliveryEvent('replayed', now),
    );
    try {
      await requeue(msgId, job);
    } catch (err) {
      // Not queued after all: dead again, as before (a failure here too is undone by the
      // worker's sweep, undoInterruptedReplays).
      await undoReplay(deps, msgId, record, record.replays, record.attempts);
      throw err;
    }
    const after = await deps.store.deliveries.get(msgId);
    return after ?? record;
  });
}

/**
 * A replay that did not get its job queued (the web process died between the record and the
 * job, or could not queue and then not undo): the message is dead again, as it was. Its reason,
 * code, message and detail are still on the record (a replay changes only the status, attempts,
 * retry_at and replays), so the dead list shows why it died, and it can be replayed again.
 */
export function undoReplay(
  deps: Deps,
  msgId: string,
  record: {
    bot_id: string;
    pipe_id: string;
    channel_id: string;
    reason?: string | null;
    code?: number | null;
  },
  replays: number,
  attempts: number,
): Promise<unknown> {
  // Only the ids are written: the caller hands over a whole record. Its history names the
  // reason it died of again.
  const { bot_id, pipe_id, channel_id } = record;
  const now = deps.now();
  return deps.store.deliveries.save(
    msgId,
    { bot_id, pipe_id, channel_id },
    { status: 'failed', replays: Math.max(0, replays), attempts },
    now,
    deliveryEvent('failed', now, { reason: record.reason, code: record.code, attempt: attempts }),
  );
}

/**
 * Sends up to `limit` dead messages matching `filter` (ReplayBatchFilter: died_before included)
 * again, oldest death first, each as replayDelivery does (its own lock; same msg_id). For the
 * usual case, after a bot got its permission back or a relay came back up: hundreds of messages
 * dead for one reason. Messages whose replay input has expired are not picked. One that cannot
 * be replayed (replayed by someone else meanwhile, say) is skipped with its error. Redis or the
 * database away ends the batch with that error: what was queued stays queued, and calling again
 * goes on from there.
 */
export async function replayDeadDeliveries(
  deps: Deps,
  filter: ReplayBatchFilter,
  limit: number,
  requeue: Requeue,
): Promise<BatchReplay> {
  const ids = await deps.store.deliveries.replayableDeadIds(filter, Math.min(limit, REPLAY_BATCH_MAX));
  const replayed: string[] = [];
  const skipped: Array<{ msg_id: string; error: HeraldError }> = [];
  let next = 0;
  // The first error that ends the batch; the lanes stop taking messages once it is set.
  let ended: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (ended === null && next < ids.length) {
      const msgId = ids[next++]!;
      try {
        await replayDelivery(deps, msgId, requeue);
        replayed.push(msgId);
      } catch (err) {
        if (err instanceof HeraldError && err.status < 500) skipped.push({ msg_id: msgId, error: err });
        else ended ??= { error: err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(REPLAY_BATCH_CONCURRENCY, ids.length) }, lane));
  if (ended !== null) throw (ended as { error: unknown }).error;
  return { replayed, skipped, remaining: await deps.store.deliveries.countReplayableDead(filter) };
}
