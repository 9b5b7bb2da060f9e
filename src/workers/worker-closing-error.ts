/**
 * The worker process is stopping and gave up this job's run midway (its renders were cut off at
 * the shutdown deadline). Not the message's doing: nothing is recorded and no attempt is spent;
 * the job runs again on another worker (its lock lapses).
 */
export class WorkerClosingError extends Error {
  override readonly name: string = 'WorkerClosingError';

  constructor() {
    super('the worker is stopping; the message is left to another worker');
  }
}

/**
 * This run's lock on its job lapsed (its process was starved of CPU past LOCK_DURATION_MS) and
 * another worker may run the job now: the run stops before it asks the relay
 * (DELIVERY_IN_DOUBT=hold), recording nothing, as a stopping worker's cut-off run does.
 */
export class JobTakenOverError extends WorkerClosingError {
  override readonly name = 'JobTakenOverError';
  override readonly message = "the job's lock lapsed; the message is left to the worker that took it over";
}
