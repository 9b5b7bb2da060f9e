import type { PipeDeps } from '../domain/pipes/runtime.js';
import type { MetricProbes } from './index.js';

/**
 * The gauges read at scrape time, the same on web and worker processes: the pipe queue's job
 * counts (BullMQ) and the number of dead messages (delivery records).
 */
export function pipeProbes(deps: PipeDeps): MetricProbes {
  const queue = deps.pipeRuntime.queue;
  return {
    queueCounts: async () => {
      const c = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      return {
        waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
        delayed: c.delayed ?? 0,
        active: c.active ?? 0,
      };
    },
    deadCount: () => deps.store.deliveries.count({ status: 'failed' }),
  };
}
