import { createLogger } from '../log/logger.js';
import { openResources } from '../resources.js';
import { startWorkers } from '../workers/index.js';
import { onShutdown } from './shutdown.js';
import { configOrExit } from './startup.js';

/** The `worker` process: queue consumers. Scale it horizontally. */
const config = configOrExit();
const log = createLogger(config.logLevel).child({ process: 'worker' });
try {
  const resources = await openResources(config, log, { boundCalls: false });
  const workers = await startWorkers(resources);
  log.info('worker started');
  onShutdown(log, config.shutdownTimeoutMs, async () => {
    await workers.close(config.shutdownTimeoutMs);
    await resources.close();
  });
} catch (err) {
  log.error('start-up failed', { error: err });
  process.exit(1);
}
