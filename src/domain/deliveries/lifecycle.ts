import { DeliveryError, type HeraldError, type ReasonCode } from '../../errors/index.js';
import type { JobState } from '../../queue/job-snapshot.js';
import type { DeliveryFilter, DeliveryStage, DeliveryStatus } from '../../store/index.js';

/*
 * A pipe message's delivery lifecycle, the one written state machine:
 *
 *   queued ──> rate_limited ──> queued (its turn came)
 *     │  └───> queued + retry_at (retrying: a retryable failure, attempts left)
 *     ├──> sent                  (terminal)
 *     ├──> folded                (terminal: carried by another message, a group's digest or
 *     │                           edited carrier; docs/pipes.md, "Grouping")
 *     └──> failed (dead) ──> queued (replayed) ──> ...
 *
 * The worker decides each step with the functions below (no I/O: unit-tested without Redis),
 * pipemsg-status reads a job's queue state through statusOfJobState, and replay and the dead-job
 * sweep move records along the same edges.
 */

/** Every move the lifecycle allows, by the record's status before it. */
export const DELIVERY_TRANSITIONS: Readonly<Record<DeliveryStatus, readonly DeliveryStatus[]>> = {
  // A wait, a retry's wait, sent, folded, or dead.
  queued: ['queued', 'rate_limited', 'sent', 'folded', 'failed'],
  // Its turn came (back in the queue), a further wait, sent, folded, or dead.
  rate_limited: ['queued', 'rate_limited', 'sent', 'folded', 'failed'],
  // Nothing moves a sent message, nor one another message carried.
  sent: [],
  folded: [],
  // Replayed (queued again), or its death recorded again by the sweep.
  failed: ['queued', 'failed'],
};

/**
 * The lifecycle's names for where a message stands and how it got there: the statuses, and
 * `retrying` (queued again with a retry_at, after a failed attempt) and `replayed` (sent again
 * by an operator). Each history entry names one; the back office's list filters by one.
 */
export const DELIVERY_STAGES = [
  'queued',
  'rate_limited',
  'retrying',
  'sent',
  'folded',
  'failed',
  'replayed',
] as const satisfies readonly DeliveryStage[];

/** What the delivery list's `status` filter takes: a stage, or `any`. */
export type StageFilter = DeliveryStage | 'any';

/**
 * The records in `stage`: queued (not waiting for a retry), retrying (queued with a retry_at),
 * rate_limited, sent and failed by their status; replayed: every message an operator replayed,
 * whatever became of it since; any: all.
 */
export function recordsInStage(stage: StageFilter): Pick<DeliveryFilter, 'status' | 'waiting' | 'replayed'> {
  switch (stage) {
    case 'queued':
      return { status: 'queued', waiting: false };
    case 'retrying':
      return { status: 'queued', waiting: true };
    case 'replayed':
      return { replayed: true };
    case 'any':
      return {};
    default:
      return { status: stage };
  }
}

/** The status of a dead message: what the dead-letter list shows, and what a replay moves on. */
export const DEAD = 'failed' satisfies DeliveryStatus;

/** A status no further run of the job changes: sent, folded, or dead (only a replay moves it on). */
export const isSettled = (status: DeliveryStatus): boolean =>
  status === 'sent' || status === 'folded' || status === 'failed';

/** Whether a message in `status` may be replayed: only a dead one (failed -> queued). */
export const isReplayable = (status: DeliveryStatus): boolean => status === DEAD && canMove(status, 'queued');

/** Whether a record may move from `from` (null: none yet) to `to`. */
export const canMove = (from: DeliveryStatus | null, to: DeliveryStatus): boolean =>
  from === null || DELIVERY_TRANSITIONS[from].includes(to);

/**
 * A job's queue state as a delivery status: a job still in the queue is queued; completed is
 * sent (or folded, as its return value says) and failed is dead, each with details only the job's fields or the record hold (the
 * caller reads those); unknown (no job) says nothing.
 */
export function statusOfJobState(state: JobState): DeliveryStatus | undefined {
  switch (state) {
    case 'waiting':
    case 'waiting-children':
    case 'prioritized':
    case 'delayed':
    case 'active':
      return 'queued';
    case 'completed':
      return 'sent';
    case 'failed':
      return 'failed';
    case 'unknown':
      return undefined;
  }
}

/** What a run of a pipe job that did not send decides. */
export type Decision =
  /** Put off until `at` (ms) without spending an attempt; back `wakeAt` to be ready for it. */
  | { readonly kind: 'wait'; readonly at: number; readonly wakeAt: number }
  /** Run again at `at` (ms), spending an attempt. */
  | { readonly kind: 'retry'; readonly reason: string; readonly at: number }
  /** Dead: recorded with `reason`, never retried (replay aside). */
  | { readonly kind: 'fail'; readonly reason: string };

/**
 * The render's clock ran out: that depends on how busy the machine was as much as on the
 * template, so it is retried (the step budget, which does not, fails for good).
 */
const isRenderClock = (err: HeraldError): boolean =>
  err.key === 'TEMPLATE_LIMIT' && err.params.limit === 'maxRenderMs';

/**
 * A failure that retrying cannot fix: a delivery error whose reason is not retryable, or a 4xx
 * other than the render's clock.
 */
export const isPermanent = (err: HeraldError): boolean =>
  err instanceof DeliveryError ? !err.retryable : err.status < 500 && !isRenderClock(err);

/**
 * After a failed attempt (1-based) of `maxAttempts`: dead, or retried `delayMs` from `now`.
 * `reason` is the failure's recorded reason.
 */
export function afterFailure(
  failure: HeraldError,
  reason: string,
  attempt: number,
  maxAttempts: number,
  now: number,
  delayMs: number,
): Decision {
  if (isPermanent(failure) || attempt >= maxAttempts) return { kind: 'fail', reason };
  return { kind: 'retry', reason, at: now + delayMs };
}

/** What a rate-limited run needs to decide its wait. */
export interface RateWait {
  /** bucket: the bot's own budget (a reserved turn); upstream: the relay answered 429. */
  readonly source: 'bucket' | 'upstream';
  /** How long the bucket or the relay said to wait, in ms. */
  readonly waitMs: number;
  readonly now: number;
  /** When the job was queued (accepted, or replayed), in ms. */
  readonly queuedAt: number;
  /** RELAY_RATE_LIMIT_PATIENCE_MS. */
  readonly patienceMs: number;
  /** How long before a reserved turn the job comes back to be ready for it, in ms. */
  readonly leadMs: number;
  /** Shortest wait, in ms. */
  readonly minWaitMs: number;
  /** Share of an upstream wait added at random (0 to it), so a backlog does not wake at once. */
  readonly spread: number;
  readonly random: () => number;
}

/**
 * A rate-limited run: wait (a reserved turn is already apart from every other message's; a 429's
 * wait is spread), or, for a 429 whose wait would end past the patience from when the job was
 * queued, dead with UPSTREAM_RATE_LIMITED (429s spend no attempt; this bounds them).
 */
export function rateWait(w: RateWait): Decision {
  const spread = w.source === 'upstream' ? w.spread * w.random() : 0;
  const wait = Math.max(w.minWaitMs, Math.ceil(w.waitMs * (1 + spread)));
  const at = w.now + wait;
  if (w.source === 'upstream' && at - w.queuedAt > w.patienceMs) {
    const reason: ReasonCode = 'UPSTREAM_RATE_LIMITED';
    return { kind: 'fail', reason };
  }
  const lead = w.source === 'bucket' ? Math.max(0, Math.min(w.leadMs, wait - w.minWaitMs)) : 0;
  return { kind: 'wait', at, wakeAt: at - lead };
}
