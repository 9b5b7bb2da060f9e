import { type Job, Worker } from 'bullmq';
import type { PipeJob } from '../queue/pipe-messages.js';

/** Why a job's end is not written: its worker was abandoned at the shutdown deadline. */
class AbandonedError extends Error {
  override readonly name = 'AbandonedError';
}

/**
 * BullMQ's worker, with a way to abandon the jobs it still runs at the shutdown deadline. Herald
 * then cuts the worker's connection so that their locks lapse and another worker takes them.
 * BullMQ 5.81 asks again at once, without end, when a job's completion meets a closed connection
 * while its worker is closing (a loop of promises that starves the event loop, so no timer,
 * exit included, ever fires); an abandoned worker instead writes no job's end at all.
 */
export class PipeWorker extends Worker<PipeJob> {
  private abandoned = false;

  /** From now on no job's end is written (call just before cutting the connection). */
  abandon(): void {
    this.abandoned = true;
  }

  protected override handleCompleted(
    ...args: Parameters<Worker<PipeJob>['handleCompleted']>
  ): Promise<Job<PipeJob>> {
    // Not a connection error, so BullMQ does not ask again; its failure path below ends quietly.
    if (this.abandoned) return Promise.reject(new AbandonedError('worker abandoned at shutdown'));
    return super.handleCompleted(...args);
  }

  protected override handleFailed(
    ...args: Parameters<Worker<PipeJob>['handleFailed']>
  ): Promise<Job<PipeJob>> {
    if (this.abandoned) return Promise.reject(new AbandonedError('worker abandoned at shutdown'));
    return super.handleFailed(...args);
  }
}
