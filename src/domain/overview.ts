import type { QueueCounts } from '../queue/messages.js';
import { type RecentCounts, recentCounts } from './deliveries/recent-counts.js';
import type { PipeDeps } from './pipes/runtime.js';
import { type WorkerSeen, workersSeen } from './worker-heartbeats.js';

/** A service's answer to a ping: whether it came within the deadline, and how long it took. */
export interface ServiceHealth {
  readonly ok: boolean;
  /** Milliseconds to the answer; null when none came. */
  readonly latency_ms: number | null;
}

/**
 * The back office's overview. A part whose source did not answer within DB_TIMEOUT_MS is null
 * (the services part says which one is down): the overview itself is answered either way.
 */
export interface Overview {
  readonly services: { readonly redis: ServiceHealth; readonly store: ServiceHealth };
  readonly queue: QueueCounts | null;
  readonly recent: RecentCounts | null;
  /** Dead messages by the reason they died of, most first. */
  readonly dead_by_reason: Array<{ reason: string | null; count: number }> | null;
  readonly workers: Array<WorkerSeen> | null;
}

/**
 * `p`'s value, or null once it fails or `ms` pass. A failure is logged at debug, message only:
 * while a service is down every open overview polls every few seconds, and the services part
 * already says which one is down (the clients log the outage themselves).
 */
function within<T>(deps: PipeDeps, part: string, p: Promise<T>, ms: number): Promise<T | null> {
  return new Promise<T | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    timer.unref();
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        deps.log.debug('overview part not read', {
          part,
          error: err instanceof Error ? err.message : String(err),
        });
        resolve(null);
      },
    );
  });
}

async function ping(deps: PipeDeps, part: string, call: () => Promise<unknown>): Promise<ServiceHealth> {
  const started = performance.now();
  const answered = await within(
    deps,
    part,
    call().then(() => true),
    deps.config.dbTimeoutMs,
  );
  return answered
    ? { ok: true, latency_ms: Math.round((performance.now() - started) * 10) / 10 }
    : { ok: false, latency_ms: null };
}

/** Everything the overview shows, each part read at once and bounded by DB_TIMEOUT_MS. */
export async function readOverview(deps: PipeDeps): Promise<Overview> {
  const ms = deps.config.dbTimeoutMs;
  const prefix = deps.config.redisPrefix;
  const now = deps.now();
  const [redis, store, queue, recent, dead, workers] = await Promise.all([
    ping(deps, 'redis', () => deps.redis.ping()),
    ping(deps, 'store', () => deps.store.ping()),
    within(deps, 'queue', deps.pipeRuntime.messages.counts(), ms),
    within(deps, 'recent', recentCounts(deps.redis, prefix, now), ms),
    within(deps, 'dead_by_reason', deps.store.deliveries.failedByReason(), ms),
    within(deps, 'workers', workersSeen(deps.redis, prefix), ms),
  ]);
  return { services: { redis, store }, queue, recent, dead_by_reason: dead, workers };
}
