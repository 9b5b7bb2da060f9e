import { Redis, type RedisOptions } from 'ioredis';
import type { Config } from './config/index.js';
import type { Deps } from './domain/deps.js';
import { LocalChanges } from './domain/local-changes.js';
import { openPipeRuntime, type PipeDeps, type PipeRuntime } from './domain/pipes/runtime.js';
import type { Logger } from './log/logger.js';
import { openStore } from './store/index.js';

export interface Resources extends PipeDeps {
  /** Closes every connection; safe to call more than once. */
  close(): Promise<void>;
}

export interface ResourceOptions {
  /** Overrides the database named in MONGO_URL (tests use a fresh one per file). */
  readonly dbName?: string;
}

/**
 * Options for the command client. No offline queue and one retry: while Redis is away a
 * request fails at once with 503 instead of hanging until a queue times out.
 */
export function commandClientOptions(config: Config): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: config.dbTimeoutMs,
  };
}

/** Opens the store and Redis for one process; start-up fails if either is unreachable. */
export async function openResources(
  config: Config,
  log: Logger,
  options: ResourceOptions = {},
): Promise<Resources> {
  const redis = new Redis(config.redisUrl, commandClientOptions(config));
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
      ...(options.dbName ? { dbName: options.dbName } : {}),
    });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const deps: Deps = { config, log, store, redis, now: () => Date.now(), changes: new LocalChanges() };
  let pipeRuntime: PipeRuntime;
  try {
    // Pipe queue producer and the pipe/channel caches with their pub/sub subscriptions.
    pipeRuntime = await openPipeRuntime(deps);
  } catch (err) {
    await store.close();
    redis.disconnect();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    ...deps,
    pipeRuntime,
    close() {
      closing ??= (async () => {
        await pipeRuntime.close();
        await store.close();
        await redis.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}
