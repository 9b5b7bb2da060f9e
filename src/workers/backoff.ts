import type { BackoffStrategy } from 'bullmq';

/** Delay before the first retry, in ms; doubled for each further attempt. */
export const BACKOFF_BASE_MS = 1_000;
/** Longest delay between two attempts, in ms. */
export const BACKOFF_MAX_MS = 60_000;
/**
 * Share of each delay that is random (0.5: a delay of d waits between d/2 and d), so that
 * messages failed by one upstream outage do not all come back at the same instant.
 */
export const BACKOFF_JITTER = 0.5;

/** Exponential backoff with jitter: attempt n (1-based) waits up to BASE * 2^(n-1), capped. */
export function deliveryBackoffMs(attemptsMade: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(ceiling * (1 - BACKOFF_JITTER + BACKOFF_JITTER * random()));
}

/** The worker's `settings.backoffStrategy`, used for pipe jobs (backoff type DELIVERY_BACKOFF_TYPE). */
export const deliveryBackoff: BackoffStrategy = (attemptsMade) => deliveryBackoffMs(attemptsMade);
