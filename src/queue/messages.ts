import { readFileSync } from 'node:fs';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { asRedisDependencyError } from '../ratelimit/redis-errors.js';
import { type JobSnapshot, readJobSnapshot } from './job-snapshot.js';
import { PIPE_JOB_NAME, type PipeJob, type PipeQueue } from './pipe-messages.js';

/** The pipe queue's jobs by state. */
export interface QueueCounts {
  readonly waiting: number;
  readonly delayed: number;
  readonly active: number;
  readonly failed: number;
}

const TEMPLATE_JOBS_LUA = readFileSync(new URL('./template-jobs.lua', import.meta.url), 'utf8');
const TEMPLATE_JOBS_COMMAND = 'heraldTemplateJobs';
type TemplateJobsCommand = (...keysThenArgs: string[]) => Promise<[number, number]>;

/** Most unfinished jobs countUnfinishedWithTemplate reads (each is one hash read inside Redis). */
export const TEMPLATE_JOBS_SCAN_MAX = 20_000;

/** Unfinished jobs that name a template, of those read. */
export interface TemplateJobCount {
  readonly count: number;
  /** More jobs were unfinished than the count read (TEMPLATE_JOBS_SCAN_MAX): count is a floor. */
  readonly capped: boolean;
}

/**
 * The pipe queue as Herald's code uses it: every add, withdrawal, requeue and read of a message's
 * job goes through here (one job per message, its id the msg_id). A Redis that is away is a
 * DependencyError (503), except where noted.
 */
export class PipeMessages {
  constructor(readonly queue: PipeQueue) {}

  /** Stores a message's job: once this resolves, the message is accepted. */
  async add(job: PipeJob): Promise<void> {
    try {
      await this.queue.add(PIPE_JOB_NAME, job, { jobId: job.msg_id });
    } catch (err) {
      throw asRedisDependencyError(err);
    }
  }

  /**
   * Removes the job of a message answered 503, in case its add (given up on) is applied after
   * all: sent on the queue's own connection after the add, Redis runs it right after. Never
   * rejects.
   */
  async withdraw(msgId: string): Promise<void> {
    await this.queue.remove(msgId).catch(() => undefined);
  }

  /** Swaps a dead message's failed job for a new one under its msg_id (a replay). */
  async requeue(msgId: string, job: PipeJob): Promise<void> {
    // Not for remove(): BullMQ refuses to remove a locked job with an error of its own, a 500.
    const old = await this.queue.getJob(msgId).catch((err: unknown) => {
      throw asRedisDependencyError(err);
    });
    if (old) await old.remove();
    await this.add(job);
  }

  /** The job's state with its fields, as of one moment; null when the queue has no such job. */
  async snapshot(msgId: string): Promise<JobSnapshot | null> {
    try {
      return await readJobSnapshot(this.queue, msgId);
    } catch (err) {
      throw asRedisDependencyError(err);
    }
  }

  /** The message's job, for the dead-job sweeps. */
  async job(msgId: string): Promise<Job<PipeJob> | undefined> {
    return (await this.queue.getJob(msgId)) as Job<PipeJob> | undefined;
  }

  /**
   * How many jobs are in each state, read at one moment: waiting (prioritized and paused ones
   * included), delayed (put off: a rate limit's or a retry's wait), active, failed (dead, kept
   * for replay).
   */
  async counts(): Promise<QueueCounts> {
    let c: Record<string, number>;
    try {
      c = await this.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed');
    } catch (err) {
      throw asRedisDependencyError(err);
    }
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.paused ?? 0),
      delayed: c.delayed ?? 0,
      active: c.active ?? 0,
      failed: c.failed ?? 0,
    };
  }

  /**
   * How many messages not yet sent (their jobs waiting, delayed or active) were accepted with
   * template `templateId` (their job's template_id): those that a deletion or a ban of it would
   * fail. Counted inside Redis (template-jobs.lua), at most `scanMax` jobs read.
   */
  async countUnfinishedWithTemplate(
    templateId: string,
    scanMax = TEMPLATE_JOBS_SCAN_MAX,
  ): Promise<TemplateJobCount> {
    try {
      const client = (await this.queue.client) as unknown as Redis &
        Record<typeof TEMPLATE_JOBS_COMMAND, TemplateJobsCommand | undefined>;
      if (!client[TEMPLATE_JOBS_COMMAND]) {
        client.defineCommand(TEMPLATE_JOBS_COMMAND, { lua: TEMPLATE_JOBS_LUA, numberOfKeys: 5 });
      }
      const k = this.queue.keys;
      const [count, capped] = await (client[TEMPLATE_JOBS_COMMAND] as TemplateJobsCommand)(
        k.wait as string,
        k.paused as string,
        k.prioritized as string,
        k.delayed as string,
        k.active as string,
        this.queue.toKey(''),
        // BullMQ stores a job's data as JSON.stringify wrote it: no space, and a template id
        // ([0-9A-Za-z]) needs no escape. Inside a string value a quote is escaped, so this text
        // can only be the job's own template_id member.
        `"template_id":${JSON.stringify(templateId)}`,
        String(scanMax),
      );
      return { count, capped: capped === 1 };
    } catch (err) {
      throw asRedisDependencyError(err);
    }
  }

  /** The ids of the newest `limit` dead (failed) jobs. */
  failedIds(limit: number): Promise<string[]> {
    return this.queue.getRanges(['failed'], 0, limit - 1, false);
  }
}
