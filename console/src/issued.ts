import type { IssuedToken } from './pipe-model.ts';

/*
 * A pipe URL just issued (create) handed from the list screen to the pipe's own screen, which
 * shows it once. Memory only: gone on reload, never in the URL or browser storage.
 */
const issued = new Map<string, IssuedToken>();

export function handOver(pipeId: string, token: IssuedToken): void {
  issued.set(pipeId, token);
}

/** The URL issued for a pipe, once: taking it forgets it. */
export function takeIssued(pipeId: string): IssuedToken | undefined {
  const token = issued.get(pipeId);
  issued.delete(pipeId);
  return token;
}
