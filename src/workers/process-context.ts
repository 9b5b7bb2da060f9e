import type { Deps } from '../domain/deps.js';
import type { HeraldMetrics } from '../metrics/index.js';
import type { PipePartitions } from '../queue/pipe-messages.js';
import type { BucketLeases } from '../ratelimit/bucket-leases.js';
import type { WorkerCaches } from './caches.js';
import type { SentLog } from './recovery/sent-log.js';
import type { RenderPool } from './render-pool/render-pool.js';

/** What each pipe message is processed with: one per worker process. */
export interface ProcessContext {
  readonly deps: Deps;
  readonly caches: WorkerCaches;
  readonly metrics: HeraldMetrics;
  readonly sentLog: SentLog;
  readonly renderer: RenderPool;
  /** The bots' message buckets, with this process's leases on busy ones. */
  readonly budgets: BucketLeases;
  /**
   * The pipe queue's partitions, where a group's digest is added, to its bot's partition
   * (delivery/grouping.ts). Absent only in tests that run jobs of ungrouped pipes themselves.
   */
  readonly queues?: PipePartitions;
}
