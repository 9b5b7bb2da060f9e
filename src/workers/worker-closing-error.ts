/**
 * The worker process is stopping and gave up this job's run midway (its renders were cut off at
 * the shutdown deadline). Not the message's doing: nothing is recorded and no attempt is spent;
 * the job runs again on another worker (its lock lapses).
 */
export class WorkerClosingError extends Error {
  override readonly name = 'WorkerClosingError';

  constructor() {
    super('the worker is stopping; the message is left to another worker');
  }
}
