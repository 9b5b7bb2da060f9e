import { HeraldError, NotFoundError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import type { DeliveryRecord, Page, PageRequest } from '../../store/index.js';
import type { Deps } from '../deps.js';

export interface DeadFilter {
  readonly bot_id?: string;
  readonly pipe_id?: string;
}

/** Failed (dead) messages, newest first, with their reason. */
export function listDeadDeliveries(
  deps: Deps,
  filter: DeadFilter,
  page: PageRequest,
): Promise<Page<DeliveryRecord>> {
  return deps.store.deliveries.list({ status: 'failed', ...filter }, page);
}

/** The Redis lock on one message's delivery record, held by replay and by dead-job recording. */
export const deliveryLockKey = (deps: Deps, msgId: string): string =>
  `${deps.config.redisPrefix}:lock:delivery:${msgId}`;

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
    if (record.status !== 'failed') {
      throw new HeraldError('DELIVERY_NOT_DEAD', { msg_id: msgId, status: record.status });
    }
    const job = await deps.store.deliveries.getReplayJob(msgId);
    if (!job) throw new HeraldError('DELIVERY_REPLAY_EXPIRED', { msg_id: msgId });
    const ids = { bot_id: record.bot_id, pipe_id: record.pipe_id, channel_id: record.channel_id };
    // Queued before the job exists, so that a fast worker's `sent` is never overwritten; the
    // replay input stays until the message is sent (or fails again and is kept anew).
    await deps.store.deliveries.save(
      msgId,
      ids,
      { status: 'queued', attempts: 0, retry_at: null, replays: record.replays + 1 },
      deps.now(),
    );
    try {
      await requeue(msgId, job);
    } catch (err) {
      // Not queued after all: dead again, as before (a failure here too is undone by the
      // worker's sweep, undoInterruptedReplays).
      await undoReplay(deps, msgId, ids, record.replays, record.attempts);
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
  ids: { bot_id: string; pipe_id: string; channel_id: string },
  replays: number,
  attempts: number,
): Promise<unknown> {
  // Only the ids: the caller may hand over a whole record.
  const { bot_id, pipe_id, channel_id } = ids;
  return deps.store.deliveries.save(
    msgId,
    { bot_id, pipe_id, channel_id },
    { status: 'failed', replays: Math.max(0, replays), attempts },
    deps.now(),
  );
}
