import type { ChainableCommander, Redis } from 'ioredis';
import { asRedisDependencyError } from '../../ratelimit/redis-errors.js';
import { isCluster } from '../../redis/clients.js';
import { waitNoteKey } from '../../redis/keys.js';

/**
 * A message's current wait (a rate limit, or the backoff before a retry), noted in Redis by the
 * worker before it puts the job off, so that pipemsg-status shows it at once: the delivery
 * record says the same, but a slow store can write it after the wait is over. The note expires
 * after its wait.
 */
export interface WaitNote {
  readonly status: 'queued' | 'rate_limited';
  /** When the next try is due, in ms. */
  readonly retry_at: number;
  /** Delivery attempts made so far. */
  readonly attempts: number;
  /** The failure the retry follows (null for a rate limit). */
  readonly reason: string | null;
  readonly code: number | null;
  /** Its message, in English; read worded anew from `params` (failure-text.ts). */
  readonly message: string | null;
  /** The failure's catalogue parameters (absent on notes from before they were kept). */
  readonly params?: Readonly<Record<string, unknown>> | null;
}

/** How long a note outlives its wait, in ms: only while the wait lasts is it read at all. */
const NOTE_MARGIN_MS = 5_000;

/**
 * Notes `msgId`'s wait; resolves once Redis holds it. `also` adds the caller's own commands to
 * the same MULTI (one round trip), e.g. a count of the retry.
 */
export async function noteWait(
  redis: Redis,
  prefix: string,
  msgId: string,
  note: WaitNote,
  now: number,
  also?: (m: ChainableCommander) => unknown,
): Promise<void> {
  const key = waitNoteKey(prefix, msgId);
  const ttl = Math.max(0, Math.ceil(note.retry_at - now)) + NOTE_MARGIN_MS;
  try {
    if (!also) {
      await redis.set(key, JSON.stringify(note), 'PX', ttl);
      return;
    }
    if (isCluster(redis)) {
      // A cluster's MULTI holds one slot: the note first, then the caller's commands (a count).
      await redis.set(key, JSON.stringify(note), 'PX', ttl);
      const more = redis.multi();
      also(more);
      const replies = await more.exec();
      const failed = replies?.find(([err]) => err !== null)?.[0];
      if (failed) throw failed;
      return;
    }
    const m = redis.multi().set(key, JSON.stringify(note), 'PX', ttl);
    also(m);
    const replies = await m.exec();
    const failed = replies?.find(([err]) => err !== null)?.[0];
    if (failed) throw failed;
  } catch (err) {
    throw asRedisDependencyError(err);
  }
}

/** `msgId`'s wait, if one is noted and not over at `now`. */
export async function currentWait(
  redis: Redis,
  prefix: string,
  msgId: string,
  now: number,
): Promise<WaitNote | null> {
  let raw: string | null;
  try {
    raw = await redis.get(waitNoteKey(prefix, msgId));
  } catch (err) {
    throw asRedisDependencyError(err);
  }
  if (raw === null) return null;
  const note = JSON.parse(raw) as WaitNote;
  return note.retry_at > now ? note : null;
}
