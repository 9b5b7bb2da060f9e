import type { MetricProbes } from '../metrics/index.js';
import type { PipeQueue } from './pipe-messages.js';

/**
 * The gauges read at scrape time, the same on web and worker processes: the pipe queue's job
 * counts and the number of dead messages, both from BullMQ (a few O(1) Redis reads). Dead
 * messages are the failed jobs the queue keeps (PIPE_JOB_KEEP_FAILED_S, 7 days, as long as they
 * can be replayed). Not counted in the store: a scrape every few seconds would count a growing
 * delivery collection, which FerretDB does by scanning it, and a slow store would hang /metrics.
 */
export function pipeProbes(queue: PipeQueue): MetricProbes {
  return {
    queueCounts: async () => {
      const c = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      return {
        waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
        delayed: c.delayed ?? 0,
        active: c.active ?? 0,
      };
    },
    deadCount: async () => (await queue.getJobCounts('failed')).failed ?? 0,
  };
}
