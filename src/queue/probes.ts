import { readFileSync } from 'node:fs';
import { QueueKeys } from 'bullmq';
import type { Redis } from 'ioredis';
import type { MetricProbes, PartitionStats } from '../metrics/index.js';
import type { PipeQueue } from './pipe-messages.js';

const LUA = readFileSync(new URL('./queue-stats.lua', import.meta.url), 'utf8');
const COMMAND = 'heraldQueueStats';
type StatsCommand = (...keysThenArgs: string[]) => Promise<number[]>;

/** One pipe queue: its BullMQ name and the `partition` label value of its series (its index). */
export interface PipeQueuePartition {
  readonly name: string;
  readonly partition: string;
}

/**
 * One partition's counts (queue-stats.lua), as of `now` (ms, this process's clock: the one job
 * timestamps and delays are written with). One Redis call.
 */
export async function readPartitionStats(
  client: Redis,
  prefix: string,
  queue: PipeQueuePartition,
  now: number,
): Promise<PartitionStats> {
  const c = client as Redis & Record<typeof COMMAND, StatsCommand | undefined>;
  if (!c[COMMAND]) c.defineCommand(COMMAND, { lua: LUA, numberOfKeys: 6 });
  const keys = new QueueKeys(prefix).getKeys(queue.name);
  const [waiting = 0, delayed = 0, due = 0, active = 0, failed = 0, oldest = -1] = await (
    c[COMMAND] as StatsCommand
  )(
    keys.wait as string,
    keys.paused as string,
    keys.prioritized as string,
    keys.delayed as string,
    keys.active as string,
    keys.failed as string,
    keys[''] as string,
    String(now),
  );
  return {
    partition: queue.partition,
    waiting,
    delayed,
    due,
    active,
    failed,
    oldestReadyAgeS: oldest < 0 ? 0 : Math.max(0, now - oldest) / 1000,
  };
}

/**
 * The queue gauges, the same on web and worker processes: per partition, the job counts by
 * state, the messages ready to run and the age of the oldest, read at scrape time in one Lua call
 * per partition (a dozen O(1) or O(log n) reads inside it). Dead messages are the failed jobs the
 * queue keeps (PIPE_JOB_KEEP_FAILED_S, 7 days, as long as they can be replayed). Not counted in
 * the store: a scrape every few seconds would count a growing delivery collection, which
 * FerretDB does by scanning it, and a slow store would hang /metrics. `queues` are the
 * partitions (redis/partitions.ts), in order: each one's own connection carries its read.
 */
export function pipeProbes(queues: readonly PipeQueue[], now: () => number = Date.now): MetricProbes {
  return {
    queueStats: async () => {
      const at = now();
      return Promise.all(
        queues.map(async (queue, i) =>
          readPartitionStats(
            (await queue.client) as unknown as Redis,
            queue.opts.prefix ?? 'bull',
            { name: queue.name, partition: String(i) },
            at,
          ),
        ),
      );
    },
  };
}
