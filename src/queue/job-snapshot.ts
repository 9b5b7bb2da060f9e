import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { PipeJob, PipeQueue } from './pipe-messages.js';

const LUA = readFileSync(new URL('./job-snapshot.lua', import.meta.url), 'utf8');
const COMMAND = 'heraldJobSnapshot';
type SnapshotCommand = (...keysThenId: string[]) => Promise<Array<string | null> | null>;

/** BullMQ's job states, as its getState answers them. */
export type JobState =
  | 'completed'
  | 'failed'
  | 'delayed'
  | 'prioritized'
  | 'active'
  | 'waiting'
  | 'waiting-children'
  | 'unknown';

/** A pipe job's state with its fields, all as of one moment. */
export interface JobSnapshot {
  readonly state: JobState;
  readonly data: PipeJob | undefined;
  /** What the processor returned (completed jobs); undefined otherwise. */
  readonly returnvalue: unknown;
  /** The message of the error its last failed attempt threw; undefined when none did. */
  readonly failedReason: string | undefined;
  readonly attemptsMade: number;
  readonly stalledCounter: number;
  readonly finishedOn: number | undefined;
}

const json = (text: string | null | undefined): unknown => {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const int = (text: string | null | undefined): number | undefined =>
  text ? Number.parseInt(text, 10) : undefined;

/**
 * Reads a pipe job's state and fields in one Lua call (job-snapshot.lua says why); null when the
 * queue has no such job. Errors are ioredis's, for the caller to classify.
 */
export async function readJobSnapshot(queue: PipeQueue, jobId: string): Promise<JobSnapshot | null> {
  const client = (await queue.client) as unknown as Redis &
    Record<typeof COMMAND, SnapshotCommand | undefined>;
  if (!client[COMMAND]) client.defineCommand(COMMAND, { lua: LUA, numberOfKeys: 9 });
  const k = queue.keys;
  const reply = await (client[COMMAND] as SnapshotCommand)(
    queue.toKey(jobId),
    k.completed as string,
    k.failed as string,
    k.delayed as string,
    k.prioritized as string,
    k.active as string,
    k.wait as string,
    k.paused as string,
    k['waiting-children'] as string,
    jobId,
  );
  if (!reply) return null;
  const [state, data, returnvalue, failedReason, atm, stc, finishedOn] = reply;
  return {
    state: (state ?? 'unknown') as JobState,
    data: json(data) as PipeJob | undefined,
    returnvalue: json(returnvalue),
    failedReason: failedReason ?? undefined,
    attemptsMade: int(atm) ?? 0,
    stalledCounter: int(stc) ?? 0,
    finishedOn: int(finishedOn),
  };
}
