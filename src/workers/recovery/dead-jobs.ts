import { setTimeout as sleep } from 'node:timers/promises';
import type { Job } from 'bullmq';
import { deadJobAttempts, deadJobFailure } from '../../domain/deliveries/dead-failure.js';
import { deliveryLockKey, undoReplay } from '../../domain/deliveries/dead-letters.js';
import { isSettled } from '../../domain/deliveries/lifecycle.js';
import { countOutcome } from '../../domain/deliveries/recent-counts.js';
import { asDeliveryFailure, describeFailure, jobIds, markDead } from '../../domain/deliveries/records.js';
import type { Deps } from '../../domain/deps.js';
import { HeraldError } from '../../errors/index.js';
import { withRecordLock } from '../../locks/record-lock.js';
import { metricsFor } from '../../metrics/index.js';
import type { PipeMessages } from '../../queue/messages.js';
import { MAX_STALLED_COUNT, type PipeJob } from '../../queue/pipe-messages.js';

export { MAX_STALLED_COUNT } from '../../queue/pipe-messages.js';
/** Longest pause between tries of a failed record that could not be written, in ms. */
export const DEAD_RECORD_MAX_RETRY_MS = 60_000;
/**
 * How many of the newest failed jobs a worker checks for a missing failed record at start-up
 * and with each hourly sweep. A record goes missing only when a process died between BullMQ
 * failing the job and the record write, so the newest jobs are where to look.
 */
export const DEAD_RECONCILE_JOBS = 1_000;
/**
 * A replayed message still `queued` this long after its replay (ms), with no job of its own, is
 * taken for a replay cut off between its record and its job (undoInterruptedReplays). Far above
 * a replay's few milliseconds, and the record's lock keeps the two apart anyway.
 */
export const REPLAY_INTERRUPTED_AFTER_MS = 5 * 60_000;
/** Most such records one sweep looks at. */
export const REPLAY_SWEEP_LIMIT = 1_000;

/**
 * Whether `job`, failed, is the run from before the replay that `record` (queued again by a
 * replay) is waiting for: it failed before the replay was recorded. A replay whose web process
 * died before it could swap the jobs leaves exactly this.
 */
const isPreReplayJob = (job: Job<PipeJob>, record: { status: string; replays: number; updated_at: number }) =>
  record.status === 'queued' && record.replays > 0 && (job.finishedOn ?? 0) <= record.updated_at;

/**
 * Writes the failed record of a job that is dead in the queue but whose processor did not
 * record it: one that stalled more than MAX_STALLED_COUNT times (BullMQ failed it in its
 * stalled check), or, should it ever happen, one whose processor could not write the record.
 * Answers whether it wrote one. Nothing is written when the job is not dead (BullMQ emits
 * 'failed' for every failed attempt), or no longer exists (replayed or expired), or its record
 * already says failed, or sent. Under the record's lock, as replay is: a replay between the
 * check and the write cannot be overwritten.
 */
export async function recordDeadJob(deps: Deps, job: Job<PipeJob>, err: Error): Promise<boolean> {
  const data = job.data;
  return withRecordLock(deps.redis, deliveryLockKey(deps, data.msg_id), async () => {
    if ((await job.getState()) !== 'failed') return false;
    const record = await deps.store.deliveries.get(data.msg_id);
    // `sent`: an earlier run delivered the message and its record landed, and a later run of the
    // same job stalled past MAX_STALLED_COUNT. The message was sent; calling it dead would list
    // it for a replay that sends it twice.
    if (record && isSettled(record.status)) return false;
    // A replay cut off before it swapped the jobs: this is the old job, dead before the replay.
    // Dead again with the reason it died of (still on the record), not as a new INTERNAL death.
    if (record && isPreReplayJob(job, record)) {
      await undoReplay(deps, data.msg_id, record, record.replays - 1, job.attemptsMade);
      deps.log.warn('undid a replay that never queued its message', { msg_id: data.msg_id });
      return false;
    }
    // Only the stall is named STALLED. Told by the job's stall count (BullMQ's `stc`), which is
    // what made BullMQ fail it, not by the text of BullMQ's failure message. Otherwise the reason
    // the worker failed it with (its failedReason is the reason code), or the one an earlier
    // record gave; INTERNAL only when nothing names one (a bug).
    const stalled = job.stalledCounter > MAX_STALLED_COUNT;
    let failure =
      !stalled && err instanceof HeraldError
        ? describeFailure(err)
        : deadJobFailure({ failedReason: err.message, stalled, data }, record);
    if (failure) {
      deps.log.info('pipe message failed; recorded from its dead job', {
        msg_id: data.msg_id,
        bot_id: data.bot_id,
        reason: failure.reason,
      });
    } else {
      const internal = asDeliveryFailure(err);
      failure = describeFailure(internal);
      deps.log.error('recording a message that died of an unexpected error', {
        msg_id: data.msg_id,
        error_id: internal.data?.error_id,
        error: err,
      });
    }
    const attempts = deadJobAttempts(job.attemptsMade, job.stalledCounter, stalled);
    await markDead(deps, jobIds(data), failure, attempts, { ...data });
    metricsFor(deps).failed.inc({ reason: failure.reason });
    await countOutcome(deps.redis, deps.config.redisPrefix, 'failed', deps.now()).catch((e: unknown) =>
      deps.log.warn('dead message not counted: Redis did not answer', { msg_id: data.msg_id, error: e }),
    );
    return true;
  });
}

/**
 * recordDeadJob until it succeeds: while the store or Redis is away the record waits, retried
 * every RETRY_BASE_MS doubling up to DEAD_RECORD_MAX_RETRY_MS, and `stopped()` ends the tries
 * (the process is closing; the next start-up's reconcile finds the job).
 */
export async function recordDeadJobPatiently(
  deps: Deps,
  job: Job<PipeJob>,
  err: Error,
  stopped: () => boolean,
): Promise<void> {
  for (let wait = deps.config.retryBaseMs; !stopped(); wait = Math.min(wait * 2, DEAD_RECORD_MAX_RETRY_MS)) {
    try {
      await recordDeadJob(deps, job, err);
      return;
    } catch (e) {
      deps.log.warn('could not record a failed message yet; retrying', {
        msg_id: job.id,
        wait_ms: wait,
        error: e,
      });
    }
    await sleep(wait, undefined, { ref: false });
  }
}

/**
 * Records the newest DEAD_RECONCILE_JOBS failed jobs that have no failed record (their
 * recording process died first). Answers how many it recorded.
 */
export async function reconcileDeadJobs(deps: Deps, messages: PipeMessages): Promise<number> {
  // Ids first, and one store query for them: a dead job holds its whole input (up to the body
  // limit), so only the few without a settled record are loaded.
  const ids = await messages.failedIds(DEAD_RECONCILE_JOBS);
  const known = await deps.store.deliveries.settledAmong(ids);
  let recorded = 0;
  for (const id of ids) {
    if (known.has(id)) continue;
    const job = await messages.job(id);
    if (!job?.data?.msg_id) continue;
    if (await recordDeadJob(deps, job, new Error(job.failedReason || 'failed in the queue'))) recorded++;
  }
  if (recorded > 0) deps.log.warn('recorded failed messages that had no record', { count: recorded });
  return recorded;
}

/**
 * Replays cut off between their record and their job (the web process died in between, or could
 * neither queue nor undo): the record says `queued` and nothing will ever run it. Such a message
 * is dead again, with the reason it died of, and can be replayed again (undoReplay). Answers how
 * many it undid. Run with the dead-job reconcile (start-up and hourly).
 */
export async function undoInterruptedReplays(deps: Deps, messages: PipeMessages): Promise<number> {
  const stale = await deps.store.deliveries.staleReplays(
    deps.now() - REPLAY_INTERRUPTED_AFTER_MS,
    REPLAY_SWEEP_LIMIT,
  );
  let undone = 0;
  for (const seen of stale) {
    const did = await withRecordLock(deps.redis, deliveryLockKey(deps, seen.msg_id), async () => {
      const record = await deps.store.deliveries.get(seen.msg_id);
      // Changed since it was listed (the message moved on, or another sweep undid it).
      if (record?.status !== 'queued' || record.updated_at !== seen.updated_at) return false;
      const job = await messages.job(seen.msg_id);
      if (job) {
        // Its own job exists (waiting, running, done): it is on its way. Only the old, failed
        // one means the swap never happened.
        if ((await job.getState()) !== 'failed' || !isPreReplayJob(job, record)) return false;
        await undoReplay(deps, record.msg_id, record, record.replays - 1, job.attemptsMade);
        return true;
      }
      await undoReplay(deps, record.msg_id, record, record.replays - 1, record.attempts);
      return true;
    });
    if (did) undone++;
  }
  if (undone > 0) deps.log.warn('undid replays that never queued their message', { count: undone });
  return undone;
}
