import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config/index.js';
import { createRedis } from '../redis/clients.js';
import { PIPE_QUEUE, partitionOfBot, pipeQueueNames } from '../redis/partitions.js';
import { batchWritesPerTurn } from '../redis/turn-batching.js';
import type { InputEncoding } from './job-input.js';

/**
 * The queue of pipe messages: web processes add, worker processes consume. It is one BullMQ
 * queue (`pipe-messages`), or REDIS_QUEUE_PARTITIONS of them, each under its own hash tag (so that
 * on a Redis Cluster they spread over the shards: a BullMQ queue lives in one slot). A message goes
 * to its bot's partition (redis/partitions.ts partitionOfBot), so a bot's messages share one
 * queue and, on a cluster, one shard with its budget's keys; a worker process consumes every
 * partition, or those WORKER_PARTITIONS names.
 */

/** BullMQ job name of every job on the pipe queue's partitions. */
export const PIPE_JOB_NAME = 'pipe-message';

/**
 * One accepted pipe message. It carries ids and the caller's input, never copies of records:
 * the worker loads the pipe, bot, channel and template itself, so an edit made after
 * acceptance (a template fixed, a pipe disabled) is what the worker sees.
 */
export interface PipeJob {
  /** The message id answered to the sender (a UUID); also the BullMQ job id. */
  msg_id: string;
  /** The pipe it came through; STUDIO_TEST_PIPE_ID for the template studio's test message. */
  pipe_id: string;
  bot_id: string;
  /** Target channel: the pipe's channel or the validated `target_id`. */
  channel_id: string;
  guild_id: string;
  /**
   * The template the door chose (the pipe's, or its route's for the event); null: the input is
   * the message content itself.
   */
  template_id: string | null;
  /**
   * Only on messages of a pipe that routes by event (domain/pipes/routing): the event the request
   * named (null: none), which the template sees as `_event`.
   */
  event?: string | null;
  /** With `event`: the allow-listed request headers, lower-case names, the template's `_headers`. */
  headers?: Record<string, string>;
  /** 9 KMarkdown, 10 card; null: the template's format, or KMarkdown without a template. */
  type: 9 | 10 | null;
  quote: string | null;
  /** Echoed to the sender; '' when none was given. */
  nonce: string;
  temp_target_id: string | null;
  /**
   * With a template: the request body exactly as sent, its bytes in base64 (`input_encoding`;
   * job-input.ts says why). A render thread decodes it with parseJsonData, as PHP's json_decode
   * would, because JSON.parse (and so a parsed copy in the job) loses the order of
   * integer-like keys that templates iterate over.
   * Without one: the `content` string.
   * '' once the job is completed: the worker drops what nobody reads again (workers/recovery/drop-inputs.ts).
   */
  input: string;
  /** 'base64' for a template's input; absent: `input` is text (also jobs from before base64). */
  input_encoding?: InputEncoding;
  /** When the web process accepted it, in ms since the epoch (the answer's msg_timestamp). */
  accepted_at: number;
  /**
   * Only on a group's digest, which the worker adds itself (workers/delivery/grouping.ts): the
   * group and the window whose collected messages it sends. Its input is '' (they are in Redis).
   */
  group?: DigestOf;
}

/** The group and window a digest job carries (docs/pipes.md, "Grouping"). */
export interface DigestOf {
  /** grouping.ts groupHash: names the group's keys in Redis. */
  readonly id: string;
  /** The group key as it rendered. */
  readonly key: string;
  readonly mode: 'digest' | 'throttle';
  /** The window's number in its group, and when it opened (ms, Redis's clock). */
  readonly window: number;
  readonly opened_at: number;
  readonly window_s: number;
}

/**
 * pipe_id of a message that came through no pipe: the template studio's "send to test channel"
 * (src/domain/templates/studio-send.ts). It carries the message already rendered, with no
 * template (template_id null, `type` the rendered format), and goes to any text channel of a
 * server the bot has joined; its record's pipe_id is this too.
 */
export const STUDIO_TEST_PIPE_ID = '';

/**
 * How many times a job may stall (its worker died) before it fails with reason STALLED instead
 * of running again: a message that crashes every worker that takes it must not kill them all.
 */
export const MAX_STALLED_COUNT = 2;
/** Delivery attempts per message (the first one included) before it is marked failed. */
export const PIPE_JOB_ATTEMPTS = 5;
/**
 * Retries wait by the worker's own backoff strategy (src/workers/delivery/backoff.ts: exponential from
 * 1 s with jitter, capped), registered under this type name on every pipe worker.
 */
export const DELIVERY_BACKOFF_TYPE = 'herald-delivery';
/** How long a delivered job stays in Redis for status reads, in seconds (1 day). */
export const PIPE_JOB_KEEP_COMPLETED_S = 24 * 60 * 60;
/** At most this many delivered jobs are kept, whatever their age (bounds Redis memory). */
export const PIPE_JOB_KEEP_COMPLETED_COUNT = 100_000;
/** How long a failed job stays in Redis for inspection, in seconds (7 days). */
export const PIPE_JOB_KEEP_FAILED_S = 7 * 24 * 60 * 60;
/** At most this many failed jobs are kept, whatever their age. */
export const PIPE_JOB_KEEP_FAILED_COUNT = 100_000;

/**
 * How long finished jobs stay, as options of the pipe workers: BullMQ applies a worker's
 * retention to every job that names none, so jobs do not carry it (less to pack per accepted
 * message on the ingest path, and a smaller job hash in Redis).
 */
export const PIPE_JOB_RETENTION = {
  removeOnComplete: { age: PIPE_JOB_KEEP_COMPLETED_S, count: PIPE_JOB_KEEP_COMPLETED_COUNT },
  removeOnFail: { age: PIPE_JOB_KEEP_FAILED_S, count: PIPE_JOB_KEEP_FAILED_COUNT },
} as const;

export type PipeQueue = Queue<PipeJob, unknown, typeof PIPE_JOB_NAME>;

/** The pipe queue's partitions, one BullMQ Queue each, on one connection. */
export class PipePartitions {
  private constructor(
    /** In partition order. */
    readonly all: readonly PipeQueue[],
    private readonly route: (botId: string) => number,
    /** Replicas an add waits for (REDIS_WAIT_REPLICAS), and how long, in ms. */
    readonly durability: { readonly replicas: number; readonly timeoutMs: number } = {
      replicas: 0,
      timeoutMs: 0,
    },
  ) {}

  /** The partitions `config` names, on `connection`. */
  static open(config: Config, connection: Redis): PipePartitions {
    const queues = pipeQueueNames(config).map(
      (name): PipeQueue =>
        new Queue(name, {
          connection,
          prefix: config.redisPrefix,
          // Retention is the workers' (PIPE_JOB_RETENTION).
          defaultJobOptions: { attempts: PIPE_JOB_ATTEMPTS, backoff: { type: DELIVERY_BACKOFF_TYPE } },
        }),
    );
    return new PipePartitions(queues, (botId) => partitionOfBot(config, botId), {
      replicas: config.redisWaitReplicas,
      timeoutMs: config.dbTimeoutMs,
    });
  }

  /** One queue as the only partition (tests that make their own queue). */
  static single(queue: PipeQueue): PipePartitions {
    return new PipePartitions([queue], () => 0);
  }

  /** `queues` as partitions: a single queue is the only one. */
  static from(queues: PipePartitions | PipeQueue): PipePartitions {
    return queues instanceof PipePartitions ? queues : PipePartitions.single(queues);
  }

  /** The queue of `botId`'s messages. */
  of(botId: string): PipeQueue {
    return this.all[this.route(botId)]!;
  }
}

export interface PipeQueueHandle {
  /** Partition 0: the whole pipe queue unless REDIS_QUEUE_PARTITIONS is above 1. */
  readonly queue: PipeQueue;
  /** Every partition; a message's is `partitions.of(bot_id)`. */
  readonly partitions: PipePartitions;
  /** The connection the queue writes on (its own). */
  readonly connection: Redis;
  /** Closes the queue and its connection; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * The producer side of the pipe queue (every partition) on its own connection. No offline queue
 * and one retry per command: while Redis is away `add` fails at once (the request answers 503) instead of
 * waiting in a client-side buffer and accepting a message that was never stored. `bounded`: a
 * command without an answer after DB_TIMEOUT_MS fails as well (Redis stopped answering).
 */
export async function createPipeQueue(config: Config, bounded = true): Promise<PipeQueueHandle> {
  const connection = createRedis(config, bounded ? 'request' : 'command');
  // Reconnect failures are reported by the command client's listener; without one here,
  // ioredis would print each to stderr.
  connection.on('error', () => {});
  // The adds of all requests served in one event-loop turn leave in one write.
  batchWritesPerTurn(connection);
  await connection.connect();
  const partitions = PipePartitions.open(config, connection);
  for (const queue of partitions.all) queue.on('error', () => {});
  await Promise.all(partitions.all.map((queue) => queue.waitUntilReady()));
  let closing: Promise<void> | undefined;
  return {
    queue: partitions.all[0]!,
    partitions,
    connection,
    close() {
      closing ??= (async () => {
        await Promise.all(partitions.all.map((queue) => queue.close().catch(() => {})));
        await connection.quit().catch(() => connection.disconnect());
      })();
      return closing;
    },
  };
}

export { PIPE_QUEUE };
