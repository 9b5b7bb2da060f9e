import { formatPartitions } from '../config/index.js';
import { openCore } from '../core.js';
import { createLogger } from '../log/logger.js';
import { createPipeQueue } from '../queue/pipe-messages.js';
import { WorkerHeartbeat } from '../workers/heartbeat.js';
import { startWorkers } from '../workers/index.js';
import { onShutdown } from './shutdown.js';
import { configOrExit } from './startup.js';

/**
 * The `worker` process: queue consumers. Scale it horizontally. It opens the core (store and
 * Redis) and a handle on the pipe queue; nothing of the web side's ingest runtime.
 */
const config = configOrExit();
const log = createLogger(config.logLevel).child({ process: 'worker' });
try {
  const core = await openCore(config, log, { boundCalls: false });
  const queue = await createPipeQueue(config, false).catch(async (err: unknown) => {
    await core.close();
    throw err;
  });
  const workers = await startWorkers(core, queue.partitions).catch(async (err: unknown) => {
    await queue.close();
    await core.close();
    throw err;
  });
  // Shows this process in the back office's overview while it runs.
  const heartbeat = new WorkerHeartbeat(core.redis, config.redisPrefix, config.workerConcurrency, log);
  await heartbeat.start();
  // Which partitions this process drains (WORKER_PARTITIONS), out of how many.
  log.info('worker started', {
    partitions: formatPartitions(workers.partitions),
    of: config.redisQueuePartitions,
  });
  onShutdown(log, config.shutdownTimeoutMs, async () => {
    await workers.close(config.shutdownTimeoutMs);
    await heartbeat.stop();
    await queue.close();
    await core.close();
  });
} catch (err) {
  log.error('start-up failed', { error: err });
  process.exit(1);
}
