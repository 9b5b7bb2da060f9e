import type { JobType } from 'bullmq';
import type { MetricProbes } from '../metrics/index.js';
import type { PipeQueue } from './pipe-messages.js';

/**
 * The gauges read at scrape time, the same on web and worker processes: the pipe queue's job
 * counts and the number of dead messages, both from BullMQ (a few O(1) Redis reads). Dead
 * messages are the failed jobs the queue keeps (PIPE_JOB_KEEP_FAILED_S, 7 days, as long as they
 * can be replayed). Not counted in the store: a scrape every few seconds would count a growing
 * delivery collection, which FerretDB does by scanning it, and a slow store would hang /metrics.
 */
export function pipeProbes(queues: PipeQueue | readonly PipeQueue[]): MetricProbes {
  const all = Array.isArray(queues) ? (queues as readonly PipeQueue[]) : [queues as PipeQueue];
  // Summed over the partitions (one read each, in parallel).
  const counts = async (...states: JobType[]) => {
    const each = await Promise.all(all.map((q) => q.getJobCounts(...states)));
    return (state: string) => each.reduce((n, c) => n + (c[state] ?? 0), 0);
  };
  return {
    queueCounts: async () => {
      const c = await counts('waiting', 'prioritized', 'delayed', 'active');
      return { waiting: c('waiting') + c('prioritized'), delayed: c('delayed'), active: c('active') };
    },
    deadCount: async () => (await counts('failed'))('failed'),
  };
}
