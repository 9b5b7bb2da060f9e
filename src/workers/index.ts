import type { Deps } from '../domain/deps.js';

export interface RunningWorkers {
  /** Stops fetching, waits for in-flight jobs up to `timeoutMs`; safe to call twice. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Starts the queue consumers of this process. The pipe-message consumer arrives with the
 * pipes and delivery work; until then the worker process holds its connections and drains
 * cleanly on SIGTERM.
 */
export async function startWorkers(deps: Deps): Promise<RunningWorkers> {
  deps.log.debug('no queue consumers registered yet');
  return {
    close: async () => {},
  };
}
