import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import { asRedisDependencyError } from '../ratelimit/redis-errors.js';
import { workerHeartbeatsKey } from '../redis/keys.js';

/*
 * Which worker processes are running, for the back office's overview: each writes a heartbeat
 * into one Redis hash (worker id -> what it is and when it last beat) every few seconds and
 * removes it when it stops. One that died without stopping is known by its silence: entries
 * older than WORKER_SEEN_MS are not shown, and whoever reads or beats next deletes them. The
 * hash expires with the last heartbeat, so a deployment with no worker left leaves nothing.
 */

/** How often a worker process beats, in ms. */
export const HEARTBEAT_EVERY_MS = 5_000;
/** A worker silent this long (three heartbeats) is taken for gone, in ms. */
export const WORKER_SEEN_MS = 3 * HEARTBEAT_EVERY_MS;

/** What a worker process says of itself. */
export interface WorkerInfo {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** Jobs it runs at once (WORKER_CONCURRENCY). */
  readonly concurrency: number;
  /** When it started, in ms. */
  readonly started_at: number;
}

export interface WorkerSeen extends WorkerInfo {
  /** Its last heartbeat, in ms. */
  readonly last_seen_at: number;
}

/**
 * The hash's entries split at `now`: those heard from within WORKER_SEEN_MS (oldest start
 * first), and the ids of the rest, unreadable entries included, to delete.
 */
export function splitHeartbeats(
  raw: Readonly<Record<string, string>>,
  now: number,
): { seen: WorkerSeen[]; gone: string[] } {
  const seen: WorkerSeen[] = [];
  const gone: string[] = [];
  for (const [id, text] of Object.entries(raw)) {
    let w: WorkerSeen | null = null;
    try {
      w = JSON.parse(text) as WorkerSeen;
    } catch {
      w = null;
    }
    if (w && typeof w.last_seen_at === 'number' && now - w.last_seen_at <= WORKER_SEEN_MS) seen.push(w);
    else gone.push(id);
  }
  seen.sort((a, b) => a.started_at - b.started_at || a.id.localeCompare(b.id));
  return { seen, gone };
}

/** The worker processes heard from lately; deletes the entries of those gone. */
export async function workersSeen(redis: Redis, prefix: string, now: number): Promise<WorkerSeen[]> {
  const key = workerHeartbeatsKey(prefix);
  try {
    const { seen, gone } = splitHeartbeats(await redis.hgetall(key), now);
    if (gone.length > 0) await redis.hdel(key, ...gone);
    return seen;
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}

/**
 * One worker process's heartbeat. Started and stopped by the process's composition root
 * (src/bin), beside the queue consumer. A beat Redis does not take is only logged: the worker
 * goes on, and shows again with its next beat.
 */
export class WorkerHeartbeat {
  readonly info: WorkerInfo;
  private readonly key: string;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    prefix: string,
    concurrency: number,
    private readonly log: Logger,
    private readonly everyMs = HEARTBEAT_EVERY_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.key = workerHeartbeatsKey(prefix);
    const host = hostname();
    this.info = {
      id: `${host}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`,
      host,
      pid: process.pid,
      concurrency,
      started_at: this.now(),
    };
  }

  /** Beats now (resolves once Redis holds it, or the beat failed), then every `everyMs`. */
  async start(): Promise<void> {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.beating = this.beat();
    }, this.everyMs);
    this.timer.unref();
    this.beating = this.beat();
    await this.beating;
  }

  /** Stops beating and removes this process's entry; safe to call twice. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await this.redis
      .hdel(this.key, this.info.id)
      .catch((err: unknown) =>
        this.log.warn('worker heartbeat not removed (it lapses by itself)', { error: err }),
      );
  }

  /** Writes this process's entry, and deletes those of workers gone silent: one round trip. */
  private async beat(): Promise<void> {
    const now = this.now();
    try {
      const replies = await this.redis
        .multi()
        .hset(this.key, this.info.id, JSON.stringify({ ...this.info, last_seen_at: now }))
        .pexpire(this.key, WORKER_SEEN_MS)
        .hgetall(this.key)
        .exec();
      const failed = replies?.find(([err]) => err !== null)?.[0];
      if (failed) throw failed;
      const all = (replies?.[2]?.[1] ?? {}) as Record<string, string>;
      const { gone } = splitHeartbeats(all, now);
      if (gone.length > 0) await this.redis.hdel(this.key, ...gone);
    } catch (err) {
      this.log.debug('worker heartbeat not written', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
