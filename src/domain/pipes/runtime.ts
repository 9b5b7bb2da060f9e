import type { Redis } from 'ioredis';
import { PipeMessages } from '../../queue/messages.js';
import { createPipeQueue, type PipePartitions, type PipeQueue } from '../../queue/pipe-messages.js';
import { BucketLeases } from '../../ratelimit/bucket-leases.js';
import type { BucketLimit } from '../../ratelimit/token-bucket.js';
import { createRedis } from '../../redis/clients.js';
import { batchWritesPerTurn } from '../../redis/turn-batching.js';
import type { ChannelRecord } from '../../store/index.js';
import type { Deps } from '../deps.js';
import { getChannel, subscribeDirectoryChanges } from '../directory/index.js';
import { LiveCache } from './live-cache.js';
import { createPipeCache, type PipeCache, subscribePipeChanges } from './pipe-cache.js';
import { SecretBox } from './signatures/secret-box.js';

/** Most channels a web process keeps for target_id checks. */
export const CHANNEL_CACHE_MAX_ENTRIES = 20_000;
/** Age after which a cached channel is re-read from the database (when it answers), in ms. */
export const CHANNEL_CACHE_FRESH_MS = 60_000;

/** Most templates whose format a web process keeps, for `type` checks at the door. */
export const TEMPLATE_FORMAT_CACHE_MAX_ENTRIES = 20_000;
/** Age after which a cached template format is re-read from the database (when it answers), in ms. */
export const TEMPLATE_FORMAT_CACHE_FRESH_MS = 60_000;

/** What the door's `type` check needs of a live template (ingest.ts, checkTemplateType). */
export interface TemplateFormat {
  readonly bot_id: string;
  readonly msgtype: number;
}

/**
 * What the pipe endpoints need beyond Deps, one per process: the producer queue, the
 * token -> pipe cache, the channel cache and the template format cache, each cache kept current
 * by Redis pub/sub.
 */
export interface PipeRuntime {
  /** The pipe queue's adds, withdrawals, requeues and job reads (queue/messages.ts). */
  readonly messages: PipeMessages;
  /** Partition 0 of the pipe queue, the whole of it unless REDIS_QUEUE_PARTITIONS is above 1 (tests). */
  readonly queue: PipeQueue;
  /** Every partition of the pipe queue (gauges, the queue browser, an in-process worker). */
  readonly queues: PipePartitions;
  /**
   * The queue's own connection: Redis runs one connection's commands in order, so a command
   * sent on it after a job's add that got no answer runs after that add, if it ever runs.
   */
  readonly producer: Redis;
  /**
   * Command client of the hot path (pipe budget, idempotency claims), no offline queue, apart
   * from the main client so that back-office and directory traffic does not queue in front of
   * ingest; its writes are batched per event-loop turn (redis/turn-batching.ts).
   */
  readonly redis: Redis;
  /** The pipes' rate-limit buckets, on `redis`, with this process's leases. */
  readonly budgets: BucketLeases;
  readonly pipes: PipeCache;
  readonly channels: LiveCache<ChannelRecord>;
  /** Live templates' formats by id (null: none live), for a `type` sent to a template pipe. */
  readonly templates: LiveCache<TemplateFormat>;
  readonly defaultLimit: BucketLimit;
  /** Seals and opens pipes' signing secrets (SECRETS_KEY; signatures/secret-box.ts). */
  readonly secrets: SecretBox;
  /** Safe to call more than once. */
  close(): Promise<void>;
}

export interface PipeDeps extends Deps {
  readonly pipeRuntime: PipeRuntime;
}

/** `boundCalls`: commands without an answer after DB_TIMEOUT_MS fail (see ResourceOptions). */
export async function openPipeRuntime(deps: Deps, boundCalls = true): Promise<PipeRuntime> {
  const { config, log } = deps;
  const defaultLimit: BucketLimit = { capacity: config.pipeRateBurst, perSecond: config.pipeRatePerSecond };
  const secrets = new SecretBox(config.secretsKey, config.secretsKeysPrevious);
  const pipes = createPipeCache(deps.store, defaultLimit, undefined, secrets);
  const channels = new LiveCache<ChannelRecord>({
    maxEntries: CHANNEL_CACHE_MAX_ENTRIES,
    freshMs: CHANNEL_CACHE_FRESH_MS,
    load: (id) => getChannel(deps, id),
  });
  const templates = new LiveCache<TemplateFormat>({
    maxEntries: TEMPLATE_FORMAT_CACHE_MAX_ENTRIES,
    freshMs: TEMPLATE_FORMAT_CACHE_FRESH_MS,
    load: async (id) => {
      const t = await deps.store.templates.getAnyBot(id);
      return t ? { bot_id: t.bot_id, msgtype: t.msgtype } : null;
    },
  });

  const redis = createRedis(config, boundCalls ? 'request' : 'command');
  // The commands of all requests served in one event-loop turn leave in one write.
  batchWritesPerTurn(redis);
  redis.on('error', () => {}); // reported by the main client's listener
  await redis.connect();
  const closers: Array<() => Promise<void>> = [
    () =>
      redis.quit().then(
        () => undefined,
        () => redis.disconnect(),
      ),
  ];
  let queue: Awaited<ReturnType<typeof createPipeQueue>>;
  try {
    queue = await createPipeQueue(config, boundCalls);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  closers.push(() => queue.close());
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
  };
  try {
    closers.push(await subscribePipeChanges(deps, pipes));
    const directory = await subscribeDirectoryChanges(
      config,
      (change) => {
        if (change.kind === 'channel') channels.invalidate(change.id);
        else if (change.kind === 'template') templates.invalidate(change.id);
        else if (change.kind === 'guild') channels.clear();
        // Cached pipes carry their bot's enabled flag; bot changes are rare.
        else if (change.kind === 'bot') pipes.clear();
      },
      {
        local: deps.changes,
        onResync: () => {
          pipes.clear();
          channels.goLive(); // from empty: changes may have been missed
          templates.goLive();
        },
        onDisconnect: () => {
          channels.goOffline();
          templates.goOffline();
        },
        onError: (err) => log.debug('directory subscriber error', { error: err.message }),
      },
    );
    channels.goLive();
    templates.goLive();
    closers.push(() => directory.close());
  } catch (err) {
    await closeAll();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    messages: new PipeMessages(queue.partitions),
    queue: queue.queue,
    queues: queue.partitions,
    producer: queue.connection,
    redis,
    budgets: new BucketLeases(redis),
    pipes,
    channels,
    templates,
    defaultLimit,
    secrets,
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}
