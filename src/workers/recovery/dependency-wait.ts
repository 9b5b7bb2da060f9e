import type { Job } from 'bullmq';
import { DependencyError } from '../../errors/index.js';
import type { Logger } from '../../log/logger.js';
import { deliveryBackoffMs } from '../delivery/backoff.js';
import { putOff } from '../job-control.js';
import { JobTakenOverError, WorkerClosingError } from '../worker-closing-error.js';

type Processor<D, R> = (job: Job<D>, token: string | undefined) => Promise<R>;

/**
 * Wraps the pipe-message processor so that an outage of the database or Redis spends no
 * attempt. A DependencyError that escapes the processor means the attempt's outcome could not
 * be recorded (or the store refused the message itself): the job moves to the delayed set for
 * the backoff of its current attempt (RETRY_BASE_MS doubling, with jitter) and runs again then,
 * with the same attempt number. Why: when the attempts ran out during an outage, the processor
 * could not write the failed record either, and the job died in the queue with no record at all
 * (not in the dead-letter list, not replayable), or with the wrong reason. Now such a message
 * is delivered once the database is back. Failures of the message itself (relay 5xx, timeouts,
 * refusals) spend attempts as before.
 */
export function waitOutDependencyErrors<D, R>(
  process: Processor<D, R>,
  retryBaseMs: number,
  log: Logger,
): Processor<D, R> {
  return async (job, token) => {
    try {
      return await process(job, token);
    } catch (err) {
      // A stopping worker's cut-off run is put off the same way (its connection may be gone
      // already: then the job's lock lapses and another worker runs it, also with no attempt spent).
      if (!(err instanceof DependencyError || err instanceof WorkerClosingError) || token === undefined)
        throw err;
      // Not this run's job any more: nothing to put off (BullMQ refuses the lapsed lock's moves).
      if (err instanceof JobTakenOverError) {
        log.warn('pipe message left to another worker: this run lost its lock', {
          msg_id: job.id,
        });
        throw err;
      }
      const waitMs = deliveryBackoffMs(job.attemptsMade + 1, Math.random, retryBaseMs);
      if (err instanceof DependencyError) {
        log.warn('pipe message waits for the database or Redis (no attempt spent)', {
          msg_id: job.id,
          dependency: err.dependency,
          error: err.cause instanceof Error ? err.cause.message : undefined,
          wait_ms: waitMs,
        });
      } else {
        log.info('pipe message left to another worker (this one is stopping; no attempt spent)', {
          msg_id: job.id,
        });
      }
      // If Redis itself is away this throws too, and BullMQ counts the attempt as failed.
      return putOff(job, token, Date.now() + waitMs);
    }
  };
}
