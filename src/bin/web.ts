import { createHttpHandler } from '../api/app.js';
import { listen } from '../http/server.js';
import { createLogger } from '../log/logger.js';
import { checkRedisPolicy } from '../redis/redis-policy.js';
import { openResources } from '../resources.js';
import { onShutdown } from './shutdown.js';
import { configOrExit } from './startup.js';

/** The `web` process: the HTTP API. */
const config = configOrExit();
const log = createLogger(config.logLevel).child({ process: 'web' });
try {
  const resources = await openResources(config, log);
  // Accepted messages are written to Redis here: never on one that may evict them.
  await checkRedisPolicy(resources.redis, log).catch(async (err: unknown) => {
    await resources.close();
    throw err;
  });
  const running = await listen(createHttpHandler(resources), config.port, config.host);
  log.info('listening', { host: config.host, port: running.port });
  onShutdown(log, config.shutdownTimeoutMs, async () => {
    await running.close(config.shutdownTimeoutMs);
    await resources.close();
  });
} catch (err) {
  log.error('start-up failed', { error: err });
  process.exit(1);
}
