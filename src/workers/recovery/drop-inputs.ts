import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../log/logger.js';
import type { PipeJob } from '../../queue/pipe-messages.js';
import { pipeJobKey, relayAnswerKey } from '../../redis/keys.js';
import { pipeQueueNameOfBot, queueSlotTag } from '../../redis/partitions.js';

const LUA = readFileSync(new URL('./drop-inputs.lua', import.meta.url), 'utf8');
const COMMAND = 'heraldDropInputs';
type DropCommand = (numberOfKeys: number, ...keysThenData: string[]) => Promise<number>;

/** Most jobs one script call handles; more wait for the next call in the same turn. */
export const DROP_INPUTS_BATCH = 500;

/**
 * Drops the input (the sender's body, up to BODY_LIMIT_BYTES) from delivered jobs, and the relay
 * answer kept for each until it completed (sent-log.ts, relayAnswerKey). Why: BullMQ
 * keeps a completed job for status reads (PIPE_JOB_RETENTION: a day, up to 100,000 jobs), and
 * nothing reads a delivered job's input again (a completed job never runs again; replay sends
 * dead messages from the store's copy). Measured by `npm run bench:worker` (MEMORY USAGE of kept
 * jobs, every field counted): 10.9 KB per delivered 50 KB GitLab push with its (deflated) input,
 * 1.3 KB without; at the retention count that is about 1.1 GB against 130 MB of Redis, and far
 * more for bodies that do not deflate or are near BODY_LIMIT_BYTES.
 * Best effort: a drop that fails leaves the input to the retention, which removes the job anyway.
 * The drops of one event-loop turn go to Redis as one script call per queue partition (on a
 * cluster a script's keys share one slot: a job's hash and its relay answer carry its partition's
 * tag there).
 */
export class InputDropper {
  private pending: Array<[key: string, answerKey: string, data: string, partition: string]> = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly config: Pick<Config, 'redisPrefix' | 'redisMode' | 'redisQueuePartitions'>,
    private readonly log: Logger,
  ) {
    const client = redis as Redis & Record<string, DropCommand | undefined>;
    if (!client[COMMAND]) redis.defineCommand(COMMAND, { lua: LUA });
  }

  /**
   * Called once the job is in BullMQ's completed set; `queueName`: the queue it is in (absent:
   * its bot's partition's, which is where it is unless REDIS_QUEUE_PARTITIONS changed since).
   */
  add(msgId: string, data: PipeJob, queueName = pipeQueueNameOfBot(this.config, data.bot_id)): void {
    const { input_encoding: _encoding, ...rest } = data;
    const prefix = this.config.redisPrefix;
    this.pending.push([
      pipeJobKey(prefix, msgId, queueName),
      relayAnswerKey(prefix, msgId, queueSlotTag(this.config, queueName)),
      JSON.stringify({ ...rest, input: '' }),
      queueName,
    ]);
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
  }

  /** Resolves once every drop asked for so far was sent and answered (or failed). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    const client = this.redis as unknown as Record<typeof COMMAND, DropCommand>;
    try {
      while (this.pending.length > 0) {
        const partition = this.pending[0]![3];
        const batch: typeof this.pending = [];
        const rest: typeof this.pending = [];
        for (const item of this.pending) {
          if (item[3] === partition && batch.length < DROP_INPUTS_BATCH) batch.push(item);
          else rest.push(item);
        }
        this.pending = rest;
        try {
          await client[COMMAND](
            2 * batch.length,
            ...batch.map(([key]) => key),
            ...batch.map(([, answerKey]) => answerKey),
            ...batch.map(([, , data]) => data),
          );
        } catch (err) {
          this.log.debug('could not drop the input of delivered jobs', { error: err, jobs: batch.length });
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }
}
