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
  /**
   * Every store and command-client call gives up after DB_TIMEOUT_MS, also when the server keeps
   * the connection open but stops answering (default true: HTTP answers wait on them). The worker
   * passes false: its jobs wait out outages themselves (workers/dependency-wait.ts), and a call
   * given up on whose write is applied later must not look like a failed delivery step.
   */
  readonly boundCalls?: boolean;
}

/**
 * Options for the command client. No offline queue and one retry: while Redis is away a
 * request fails at once with 503 instead of hanging until a queue times out. `bounded`: a
 * command without an answer after DB_TIMEOUT_MS fails too (Redis stopped answering).
 */
export function commandClientOptions(config: Config, bounded = true): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: config.dbTimeoutMs,
    ...(bounded ? { commandTimeout: config.dbTimeoutMs } : {}),
  };
}

/** Opens the store and Redis for one process; start-up fails if either is unreachable. */
export async function openResources(
  config: Config,
  log: Logger,
  options: ResourceOptions = {},
): Promise<Resources> {
  const bounded = options.boundCalls ?? true;
  const redis = new Redis(config.redisUrl, commandClientOptions(config, bounded));
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
  const deps: Deps = { config, log, store, redis, now: () => Date.now(), changes: new LocalChanges() };
  let pipeRuntime: PipeRuntime;
  try {
    // Pipe queue producer and the pipe/channel caches with their pub/sub subscriptions.
    pipeRuntime = await openPipeRuntime(deps, bounded);
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
