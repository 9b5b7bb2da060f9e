import type { BackoffStrategy } from 'bullmq';
import { DEFAULT_RETRY_BASE_MS } from '../../config/defaults.js';

/** Longest delay between two attempts, in ms. */
export const BACKOFF_MAX_MS = 60_000;
/**
 * Share of each delay that is random (0.5: a delay of d waits between d/2 and d), so that
 * messages failed by one upstream outage do not all come back at the same instant.
 */
export const BACKOFF_JITTER = 0.5;

/**
 * Exponential backoff with jitter: attempt n (1-based) waits up to baseMs * 2^(n-1), capped.
 * `baseMs` is the configured RETRY_BASE_MS.
 */
export function deliveryBackoffMs(
  attemptsMade: number,
  random: () => number = Math.random,
  baseMs: number = DEFAULT_RETRY_BASE_MS,
): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(ceiling * (1 - BACKOFF_JITTER + BACKOFF_JITTER * random()));
}

/**
 * The jitter of one message's retry after `attempt` (1-based), in [0, 1): fixed by its id and the
 * attempt (FNV-1a), so that the worker recording the retry (its `retry_at`) and BullMQ's
 * strategy, which computes the delay a moment later, agree; different messages still spread.
 */
export function backoffJitter(msgId: string, attempt: number): number {
  const key = `${msgId}:${attempt}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 2 ** 32;
}

/** How long a message waits after its failed `attempt` (1-based) before the next, in ms. */
export function retryDelayMs(msgId: string, attempt: number, baseMs: number): number {
  return deliveryBackoffMs(attempt, () => backoffJitter(msgId, attempt), baseMs);
}

/**
 * When the worker recorded that a failed attempt's retry is due (ms), by the error it throws: the
 * strategy below waits until then, however long the record's write took, so that the recorded
 * `retry_at` is when the message runs again.
 */
export const plannedRetries = new WeakMap<Error, number>();

/**
 * The worker's `settings.backoffStrategy`, used for pipe jobs (backoff type DELIVERY_BACKOFF_TYPE),
 * starting from `baseMs` (config.retryBaseMs). BullMQ passes the attempt that failed (1-based)
 * and the job, whose id is the msg_id.
 */
export const deliveryBackoff =
  (baseMs: number): BackoffStrategy =>
  (attemptsMade, _type, err, job) => {
    const planned = err ? plannedRetries.get(err) : undefined;
    if (planned !== undefined) return Math.max(0, planned - Date.now());
    return job?.id === undefined
      ? deliveryBackoffMs(attemptsMade, Math.random, baseMs)
      : retryDelayMs(job.id, attemptsMade, baseMs);
  };
