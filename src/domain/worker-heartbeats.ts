import type { Redis } from 'ioredis';
import { asRedisDependencyError } from '../ratelimit/redis-errors.js';
import { workerHeartbeatsKey } from '../redis/keys.js';

/*
 * Which worker processes are running, for the back office's overview: each writes a heartbeat
 * into one Redis hash (worker id -> what it is and when it last beat) every few seconds and
 * removes it when it stops (src/workers/heartbeat.ts). One that died without stopping is known
 * by its silence: entries older than WORKER_SEEN_MS are not shown, and whoever reads or beats
 * next deletes them. "When" is always Redis's clock (TIME), never a host's: hosts' clocks may
 * disagree, and a reader whose clock runs ahead would hide (and delete) live workers. The hash
 * expires with the last heartbeat, so a deployment with no worker left leaves nothing.
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
  /** When it started, in ms (its own clock: shown, never compared). */
  readonly started_at: number;
}

export interface WorkerSeen extends WorkerInfo {
  /** Its last heartbeat, in ms, on Redis's clock. */
  readonly last_seen_at: number;
}

/**
 * The hash's entries split at `now` (Redis's clock): those heard from within WORKER_SEEN_MS
 * (oldest start first), and the ids of the rest, unreadable entries included, to delete.
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

/** Redis's TIME reply ([seconds, microseconds]) in ms. */
const timeMs = (t: readonly [string, string] | readonly unknown[]): number =>
  Number(t[0]) * 1000 + Math.floor(Number(t[1]) / 1000);

/** The worker processes heard from lately, by Redis's clock; deletes the entries of those gone. */
export async function workersSeen(redis: Redis, prefix: string): Promise<WorkerSeen[]> {
  const key = workerHeartbeatsKey(prefix);
  try {
    // A pipeline, not MULTI: ioredis leaves the MULTI command's own promise unhandled when the
    // connection closes mid-transaction (an unhandled rejection), and two reads need no atomicity.
    const replies = await redis.pipeline().time().hgetall(key).exec();
    const failed = replies?.find(([err]) => err !== null)?.[0];
    if (failed) throw failed;
    const now = timeMs((replies?.[0]?.[1] ?? []) as unknown[]);
    const { seen, gone } = splitHeartbeats((replies?.[1]?.[1] ?? {}) as Record<string, string>, now);
    if (gone.length > 0) await redis.hdel(key, ...gone);
    return seen;
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}

/*
 * One beat, in one round trip: this worker's entry stamped with Redis's clock, the hash's
 * expiry renewed, and the entries silent for WORKER_SEEN_MS deleted. The stamp is spliced in as
 * text (cjson would print a ms timestamp in exponent form, losing its last digits).
 */
const BEAT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stamp = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
redis.call('HSET', KEYS[1], ARGV[1], string.sub(ARGV[2], 1, -2) .. ',"last_seen_at":' .. stamp .. '}')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local seen = tonumber(string.match(all[i + 1], '"last_seen_at":(%d+)') or '')
  if seen == nil or now - seen > tonumber(ARGV[3]) then redis.call('HDEL', KEYS[1], all[i]) end
end
return now
`;

/** Writes `info`'s heartbeat, stamped with Redis's clock; answers that time (ms). */
export async function writeHeartbeat(redis: Redis, prefix: string, info: WorkerInfo): Promise<number> {
  try {
    const now = await redis.eval(
      BEAT_SCRIPT,
      1,
      workerHeartbeatsKey(prefix),
      info.id,
      JSON.stringify(info),
      String(WORKER_SEEN_MS),
    );
    return Number(now);
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}

/** Removes a stopping worker's heartbeat. */
export async function removeHeartbeat(redis: Redis, prefix: string, id: string): Promise<void> {
  try {
    await redis.hdel(workerHeartbeatsKey(prefix), id);
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}
