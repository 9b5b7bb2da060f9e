import { DelayedError, type Job, UnrecoverableError } from 'bullmq';

/*
 * The one place that steers a running BullMQ job. BullMQ takes these decisions only as thrown
 * errors; the pipeline decides them as values (domain/deliveries/lifecycle.ts) and ends here.
 */

/** Puts the job off until `at` (ms) without spending an attempt. */
export async function putOff(job: Job, token: string | undefined, at: number): Promise<never> {
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}

/** Ends the job dead, never retried; BullMQ keeps `reason` as its failedReason. */
export function endDead(reason: string): never {
  throw new UnrecoverableError(reason);
}

/**
 * Ends the run for BullMQ to retry with the delivery backoff (workers/delivery/backoff.ts);
 * BullMQ keeps the error's message as the job's failedReason.
 */
export function retryLater(failure: Error): never {
  throw failure;
}
