import { readFileSync } from 'node:fs';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { asRedisDependencyError } from '../ratelimit/redis-errors.js';
import { type JobSnapshot, readJobSnapshot } from './job-snapshot.js';
import { PIPE_JOB_NAME, type PipeJob, PipePartitions, type PipeQueue } from './pipe-messages.js';

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
  readonly partitions: PipePartitions;

  /** `queues`: the pipe queue's partitions, or one queue as the only one (tests). */
  constructor(queues: PipePartitions | PipeQueue) {
    this.partitions = PipePartitions.from(queues);
  }

  /** Partition 0: the whole pipe queue unless REDIS_QUEUE_PARTITIONS is above 1. */
  get queue(): PipeQueue {
    return this.partitions.all[0]!;
  }

  /**
   * The first partition whose `read` finds something. A message's partition is its bot's, but a
   * caller with only a msg_id (a status read, a sweep) does not know the bot; all are read at once
   * (one round trip per partition, in parallel; none extra with one partition).
   */
  private async findInAny<T>(read: (queue: PipeQueue) => Promise<T | null | undefined>): Promise<T | null> {
    const all = this.partitions.all;
    if (all.length === 1) return (await read(all[0]!)) ?? null;
    const found = await Promise.all(all.map(read));
    return found.find((f) => f !== null && f !== undefined) ?? null;
  }

  /** Stores a message's job: once this resolves, the message is accepted. */
  async add(job: PipeJob): Promise<void> {
    const queue = this.partitions.of(job.bot_id);
    const { replicas, timeoutMs } = this.partitions.durability;
    let acked = replicas;
    try {
      await queue.add(PIPE_JOB_NAME, job, { jobId: job.msg_id });
      // WAIT covers every write this connection made before it, the add included.
      if (replicas > 0) acked = await ((await queue.client) as unknown as Redis).wait(replicas, timeoutMs);
    } catch (err) {
      throw asRedisDependencyError(err);
    }
    // Fewer replicas hold it than asked: a failover now could lose it, so it is not accepted
    // (the ingest withdraws it); the sender retries.
    if (acked < replicas) {
      throw asRedisDependencyError(new Error(`the job reached ${acked} of ${replicas} replicas in time`));
    }
  }

  /**
   * Removes the job of a message answered 503, in case its add (given up on) is applied after
   * all: sent on the queue's own connection after the add, Redis runs it right after. Never
   * rejects. `botId`: the message's bot (its partition).
   */
  async withdraw(msgId: string, botId: string): Promise<void> {
    await this.partitions
      .of(botId)
      .remove(msgId)
      .catch(() => undefined);
  }

  /** Swaps a dead message's failed job for a new one under its msg_id (a replay). */
  async requeue(msgId: string, job: PipeJob): Promise<void> {
    // Not for remove(): BullMQ refuses to remove a locked job with an error of its own, a 500.
    // Looked for in every partition: the old job is where its bot's partition was when it was
    // accepted (REDIS_QUEUE_PARTITIONS may have changed since).
    const old = await this.findInAny((q) => q.getJob(msgId)).catch((err: unknown) => {
      throw asRedisDependencyError(err);
    });
    if (old) await old.remove();
    await this.add(job);
  }

  /** The job's state with its fields, as of one moment; null when the queue has no such job. */
  async snapshot(msgId: string): Promise<JobSnapshot | null> {
    try {
      return await this.findInAny((q) => readJobSnapshot(q, msgId));
    } catch (err) {
      throw asRedisDependencyError(err);
    }
  }

  /** The message's job, for the dead-job sweeps. */
  async job(msgId: string): Promise<Job<PipeJob> | undefined> {
    return ((await this.findInAny((q) => q.getJob(msgId))) as Job<PipeJob> | null) ?? undefined;
  }

  /**
   * How many jobs are in each state, read at one moment per partition and summed: waiting
   * (prioritized and paused ones included), delayed (put off: a rate limit's or a retry's wait),
   * active, failed (dead, kept for replay).
   */
  async counts(): Promise<QueueCounts> {
    let all: Array<Record<string, number>>;
    try {
      all = await Promise.all(
        this.partitions.all.map((q) =>
          q.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed'),
        ),
      );
    } catch (err) {
      throw asRedisDependencyError(err);
    }
    const sum = (state: string) => all.reduce((n, c) => n + (c[state] ?? 0), 0);
    return {
      waiting: sum('waiting') + sum('prioritized') + sum('paused'),
      delayed: sum('delayed'),
      active: sum('active'),
      failed: sum('failed'),
    };
  }

  /**
   * How many messages not yet sent (their jobs waiting, delayed or active) were accepted with
   * template `templateId` (their job's template_id): those that a deletion or a ban of it would
   * fail. Counted inside Redis (template-jobs.lua), at most `scanMax` jobs read per partition.
   */
  async countUnfinishedWithTemplate(
    templateId: string,
    scanMax = TEMPLATE_JOBS_SCAN_MAX,
  ): Promise<TemplateJobCount> {
    const counts = await Promise.all(
      this.partitions.all.map((q) => this.countInPartition(q, templateId, scanMax)),
    );
    return {
      count: counts.reduce((n, c) => n + c.count, 0),
      capped: counts.some((c) => c.capped),
    };
  }

  private async countInPartition(
    queue: PipeQueue,
    templateId: string,
    scanMax: number,
  ): Promise<TemplateJobCount> {
    try {
      const client = (await queue.client) as unknown as Redis &
        Record<typeof TEMPLATE_JOBS_COMMAND, TemplateJobsCommand | undefined>;
      if (!client[TEMPLATE_JOBS_COMMAND]) {
        client.defineCommand(TEMPLATE_JOBS_COMMAND, { lua: TEMPLATE_JOBS_LUA, numberOfKeys: 5 });
      }
      const k = queue.keys;
      const [count, capped] = await (client[TEMPLATE_JOBS_COMMAND] as TemplateJobsCommand)(
        k.wait as string,
        k.paused as string,
        k.prioritized as string,
        k.delayed as string,
        k.active as string,
        queue.toKey(''),
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

  /** The ids of the newest `limit` dead (failed) jobs of each partition. */
  async failedIds(limit: number): Promise<string[]> {
    const ids = await Promise.all(
      this.partitions.all.map((q) => q.getRanges(['failed'], 0, limit - 1, false)),
    );
    return ids.flat();
  }
}
