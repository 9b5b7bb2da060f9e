import { setTimeout as sleep } from 'node:timers/promises';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { expireRendered, expireReplayInput } from '../domain/deliveries/records.js';
import type { Deps } from '../domain/deps.js';
import type { RunningServer } from '../http/server.js';
import { metricsFor } from '../metrics/index.js';
import { PipeMessages } from '../queue/messages.js';
import { PIPE_JOB_RETENTION, type PipeJob, PipePartitions, type PipeQueue } from '../queue/pipe-messages.js';
import { pipeProbes } from '../queue/probes.js';
import { BucketLeases } from '../ratelimit/bucket-leases.js';
import { createRedis } from '../redis/clients.js';
import { checkRedisPolicy } from '../redis/redis-policy.js';
import { batchWritesPerTurn } from '../redis/turn-batching.js';
import { WorkerCaches } from './caches.js';
import { deliveryBackoff } from './delivery/backoff.js';
import { processPipeJob } from './delivery/process-message.js';
import { startMetricsServer } from './metrics-server.js';
import { PipeWorker } from './pipe-worker.js';
import {
  MAX_STALLED_COUNT,
  reconcileDeadJobs,
  recordDeadJobPatiently,
  undoInterruptedReplays,
} from './recovery/dead-jobs.js';
import { waitOutDependencyErrors } from './recovery/dependency-wait.js';
import { InputDropper } from './recovery/drop-inputs.js';
import { SentLog } from './recovery/sent-log.js';
import { RenderPool } from './render-pool/render-pool.js';
import { SlotUtilisation } from './utilisation.js';

// The lock on a job (LOCK_DURATION_MS, always longer than RELAY_TIMEOUT_MS: loadConfig refuses
// anything else) and the stalled-job check (STALLED_INTERVAL_MS) are config.lockDurationMs and
// config.stalledIntervalMs; src/config/defaults.ts explains both.
export { MAX_STALLED_COUNT } from './recovery/dead-jobs.js';
/**
 * How often a worker drops replay input older than DEAD_RETENTION_MS, and sent messages' kept
 * text older than RENDERED_RETENTION_DAYS, in ms (hourly).
 */
export const RETENTION_SWEEP_MS = 60 * 60 * 1000;

export interface RunningWorkers {
  /** Stops fetching, waits for in-flight jobs up to `timeoutMs`; safe to call twice. */
  close(timeoutMs: number): Promise<void>;
  /** Port of GET /metrics. */
  readonly metricsPort: number;
  /** The partitions this process consumes (WORKER_PARTITIONS), in order. */
  readonly partitions: readonly number[];
}

/**
 * Jobs each partition's consumer runs at once: WORKER_CONCURRENCY shared out over the partitions,
 * at least one each (so a process runs at least WORKER_CONCURRENCY jobs when all are busy, and at
 * most that plus one per partition).
 */
export const partitionConcurrency = (concurrency: number, partitions: number): number =>
  Math.max(1, Math.ceil(concurrency / partitions));

/**
 * Starts the pipe-message consumers of this process, one per partition it consumes
 * (`config.workerPartitions`, WORKER_PARTITIONS: all by default): `config.workerConcurrency` jobs
 * at once in all, GET /metrics
 * on `config.metricsPort`. Refuses to start on a Redis that may evict queue keys. `queues` is a
 * producer handle on the pipe queue's partitions (one queue: the only partition): job reads for
 * the dead-job sweeps, digests, and the depth gauges.
 */
export async function startWorkers(deps: Deps, queues: PipePartitions | PipeQueue): Promise<RunningWorkers> {
  const { config, log } = deps;
  const partitions = PipePartitions.from(queues);
  // This process's share of the partitions; `partitions` stays whole: digests go to their bot's
  // partition, job reads look in every one, and the depth gauges show every partition (one that
  // no worker consumes shows its oldest waiting age rising).
  const own = config.workerPartitions.filter((i) => i < partitions.all.length);
  if (own.length === 0) {
    throw new Error(`WORKER_PARTITIONS names none of the ${partitions.all.length} partitions given`);
  }
  await checkRedisPolicy(deps.redis, log);
  const metrics = metricsFor(deps);
  // How busy the job slots are, for the autoscaling gauges (utilisation.ts): every consumer's
  // slots together.
  const concurrency = partitionConcurrency(config.workerConcurrency, own.length);
  const slots = new SlotUtilisation(concurrency * own.length);
  metrics.setProbes({
    ...pipeProbes(partitions.all),
    utilisation: () => slots.read(),
    consumedPartitions: own,
  });
  const messages = new PipeMessages(partitions);
  const caches = new WorkerCaches(deps);
  await caches.start(deps);
  const closers: Array<() => Promise<void>> = [() => caches.close()];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
  };
  let metricsServer: RunningServer;
  let connection: Redis;
  let consumers: PipeWorker[];
  try {
    metricsServer = await startMetricsServer(metrics.registry, config.metricsPort, config.host);
    closers.push(() => metricsServer.close(1_000));
    log.info('metrics listening', { port: metricsServer.port });
    // BullMQ's commands need a connection that retries forever (it makes its own duplicate for
    // blocking reads). The commands of all jobs in one event-loop turn (fetch, lock renewals,
    // completions) leave in one write, as do the command client's (budget, sent log).
    connection = batchWritesPerTurn(createRedis(config, 'blocking'));
    batchWritesPerTurn(deps.redis);
    connection.on('error', (err: Error) => log.debug('worker redis error', { error: err.message }));
    await connection.connect();
    closers.push(async () => {
      await connection.quit().catch(() => connection.disconnect());
    });
    // The sent-record flusher blocks on reads: a connection of its own, retrying while Redis is away.
    const flusherConnection = createRedis(config, 'blocking');
    flusherConnection.on('error', (err: Error) => log.debug('worker redis error', { error: err.message }));
    await flusherConnection.connect();
    closers.push(async () => {
      await flusherConnection.quit().catch(() => flusherConnection.disconnect());
    });
    const sentLog = new SentLog(deps, deps.redis, flusherConnection, {
      claimIdleMs: config.sentLogClaimIdleMs,
    });
    await sentLog.start();
    // Closed after the queue consumer (see close()), so in-flight jobs can still append.
    closers.push(() => sentLog.close());
    const renderer = new RenderPool(config.renderThreads, log);
    closers.push(() => renderer.close());
    await renderer.ready();
    const ctx = {
      deps,
      caches,
      metrics,
      sentLog,
      renderer,
      budgets: new BucketLeases(deps.redis),
      queues: partitions,
    };
    // A database or Redis outage delays the job without spending an attempt (dependency-wait.ts).
    const processor = slots.wrap(
      waitOutDependencyErrors<PipeJob, unknown>(
        (job, token) => processPipeJob(ctx, job, token),
        config.retryBaseMs,
        log,
      ),
    );
    consumers = own.map(
      (i) =>
        new PipeWorker(partitions.all[i]!.name, processor, {
          connection,
          prefix: config.redisPrefix,
          concurrency,
          lockDuration: config.lockDurationMs,
          stalledInterval: config.stalledIntervalMs,
          maxStalledCount: MAX_STALLED_COUNT,
          ...PIPE_JOB_RETENTION,
          settings: { backoffStrategy: deliveryBackoff(config.retryBaseMs) },
          autorun: false,
        }),
    );
  } catch (err) {
    await closeAll();
    throw err;
  }
  // A delivered job is kept for status reads; its input is not needed again (drop-inputs.ts).
  const dropper = new InputDropper(deps.redis, config, log);
  closers.push(() => dropper.settled());
  let closing: Promise<void> | undefined;
  for (const worker of consumers) {
    worker.on('error', (err) => log.warn('worker error', { error: err.message }));
    worker.on('completed', (job: Job<PipeJob>) => {
      if (job.id !== undefined) dropper.add(job.id, job.data, job.queueName);
    });
    // Failures the processor did not record itself: a job that stalled more than MAX_STALLED_COUNT
    // (or, should it ever happen, one whose processor could not write its failed record). Retried
    // while the store is away, so the message does reach the dead list.
    worker.on('failed', (job: Job<PipeJob> | undefined, err: Error) => {
      if (!job) return;
      void recordDeadJobPatiently(deps, job, err, () => closing !== undefined);
    });
  }
  // Dead jobs whose recording process died first, and replays cut off before their job was
  // queued: looked for at start-up and with each sweep.
  const reconcile = () =>
    reconcileDeadJobs(deps, messages)
      .then(() => undoInterruptedReplays(deps, messages))
      .catch((err: unknown) => log.warn('could not look for unrecorded failed messages', { error: err }));
  void reconcile();
  const sweep = setInterval(() => {
    expireReplayInput(deps).catch((err: unknown) =>
      log.warn('replay retention sweep failed', { error: err }),
    );
    expireRendered(deps).catch((err: unknown) =>
      log.warn('rendered message retention sweep failed', { error: err }),
    );
    void reconcile();
  }, RETENTION_SWEEP_MS);
  sweep.unref();
  for (const worker of consumers) {
    void worker.run().catch((err: unknown) => log.error('worker stopped', { error: err }));
  }
  await Promise.all(consumers.map((worker) => worker.waitUntilReady()));

  return {
    metricsPort: metricsServer.port,
    partitions: own,
    close(timeoutMs) {
      closing ??= (async () => {
        clearInterval(sweep);
        // Stop fetching and let in-flight jobs finish; past the deadline, force: their locks
        // lapse and another worker takes them (nothing is lost).
        const graceful = Promise.all(consumers.map((worker) => worker.close()));
        const finished = await Promise.race([graceful.then(() => true), sleep(timeoutMs).then(() => false)]);
        if (!finished) {
          log.warn('in-flight messages did not finish in time; leaving them to other workers', {
            timeout_ms: timeoutMs,
          });
          // worker.close(true) would only hand back the graceful close still under way (BullMQ
          // keeps one closing promise). Cutting the connection under the jobs instead stops
          // their lock renewals, so their locks lapse and another worker takes them.
          graceful.catch(() => {});
          for (const worker of consumers) worker.abandon();
          connection.disconnect();
        }
        await closeAll();
      })();
      return closing;
    },
  };
}
