import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import {
  HEARTBEAT_EVERY_MS,
  removeHeartbeat,
  type WorkerInfo,
  writeHeartbeat,
} from '../domain/worker-heartbeats.js';
import type { Logger } from '../log/logger.js';

/**
 * One worker process's heartbeat (src/domain/worker-heartbeats.ts keeps the Redis side).
 * Started and stopped by the process's composition root (src/bin), beside the queue consumer.
 * A beat Redis does not take is only logged: the worker goes on, and shows again with its next
 * beat.
 */
export class WorkerHeartbeat {
  readonly info: WorkerInfo;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    concurrency: number,
    private readonly log: Logger,
    private readonly everyMs = HEARTBEAT_EVERY_MS,
    now: () => number = Date.now,
  ) {
    const host = hostname();
    this.info = {
      id: `${host}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`,
      host,
      pid: process.pid,
      concurrency,
      started_at: now(),
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
    await removeHeartbeat(this.redis, this.prefix, this.info.id).catch((err: unknown) =>
      this.log.warn('worker heartbeat not removed (it lapses by itself)', { error: err }),
    );
  }

  private async beat(): Promise<void> {
    try {
      await writeHeartbeat(this.redis, this.prefix, this.info);
    } catch (err) {
      this.log.debug('worker heartbeat not written', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
