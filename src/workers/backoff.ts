import type { BackoffStrategy } from 'bullmq';
import { DEFAULT_RETRY_BASE_MS } from '../config/defaults.js';

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
 * The worker's `settings.backoffStrategy`, used for pipe jobs (backoff type DELIVERY_BACKOFF_TYPE),
 * starting from `baseMs` (config.retryBaseMs).
 */
export const deliveryBackoff =
  (baseMs: number): BackoffStrategy =>
  (attemptsMade) =>
    deliveryBackoffMs(attemptsMade, Math.random, baseMs);
