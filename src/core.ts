import type { Config } from './config/index.js';
import type { Deps } from './domain/deps.js';
import { LocalChanges } from './domain/local-changes.js';
import type { Logger } from './log/logger.js';
import { createRedis } from './redis/clients.js';
import { openStore } from './store/index.js';

/*
 * What every process is built on: the store and the Redis command client. Each process's
 * composition root (src/bin) adds only what it uses: the worker its consumers, the web process
 * the ingest runtime (src/resources.ts).
 */

export interface Core extends Deps {
  /** Closes the store and the command client; safe to call more than once. */
  close(): Promise<void>;
}

export interface ResourceOptions {
  /** Overrides the database named in MONGO_URL (tests use a fresh one per file). */
  readonly dbName?: string;
  /**
   * Every store and command-client call gives up after DB_TIMEOUT_MS, also when the server keeps
   * the connection open but stops answering (default true: HTTP answers wait on them). The worker
   * passes false: its jobs wait out outages themselves (workers/recovery/dependency-wait.ts), and a call
   * given up on whose write is applied later must not look like a failed delivery step.
   */
  readonly boundCalls?: boolean;
}

/** Opens the store and the Redis command client; start-up fails if either is unreachable. */
export async function openCore(config: Config, log: Logger, options: ResourceOptions = {}): Promise<Core> {
  const bounded = options.boundCalls ?? true;
  const redis = createRedis(config, bounded ? 'request' : 'command');
  // Without a listener ioredis prints every reconnect failure to stderr; we log them once each.
  redis.on('error', (err: Error) => log.warn('redis error', { error: err.message }));
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(config.mongoUrl, {
      timeoutMs: config.dbTimeoutMs,
      boundCalls: bounded,
      ...(options.dbName ? { dbName: options.dbName } : {}),
    });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    config,
    log,
    store,
    redis,
    now: () => Date.now(),
    changes: new LocalChanges(),
    close() {
      closing ??= (async () => {
        await store.close();
        await redis.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}
