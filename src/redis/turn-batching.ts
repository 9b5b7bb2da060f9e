import type { Redis } from 'ioredis';
import { isCluster } from './clients.js';

/*
 * Turn batching for Redis clients on hot paths. ioredis writes every command to its socket at
 * once: one syscall per command, and on loopback or a VM that syscall was the largest single
 * cost in the CPU profiles of send-pipemsg and of the delivery worker. Under load many requests
 * (or jobs) issue commands within one event-loop turn, so a batched client corks its socket and
 * uncorks it when the turn's I/O callbacks are done (setImmediate runs right after them): the
 * turn's commands leave in one write, and Redis answers them in one read.
 *
 * Nagle's rule decides when to hold: a command sent while no reply is pending leaves at once
 * (Redis is idle, so holding it would only add latency), and only commands sent while replies
 * are pending are held for the rest of the turn (they would queue behind those replies anyway).
 * Measured with bench:ingest (3 alternating rounds each, same machine, same session): holding
 * every command gave 0.86x the baseline's requests per second, no batching 0.94x, this rule
 * 0.96x with the least server and Redis CPU per request of the three (42 and 23 µs).
 *
 * Uncorking on process.nextTick instead (after the current callback only) was measured on the
 * ingest: batches shrank to a few commands and throughput fell by a third. ioredis's
 * enableAutoPipelining batches too, but builds a pipeline object per batch; measured on the
 * ingest it cost more CPU than it saved. A cork costs nothing per command.
 */

/** Holds `redis`'s writes until the end of the current event-loop turn (no-op while held or unconnected). */
export function holdWritesThisTurn(redis: Redis): void {
  const socket = redis.stream as Redis['stream'] | undefined;
  if (socket === undefined || socket.destroyed || socket.writableCorked > 0) return;
  socket.cork();
  setImmediate(() => socket.uncork());
}

const BATCHED = Symbol('herald.turnBatched');

/** Commands written whose replies have not arrived (ioredis's own queue of them). */
const awaitingReplies = (redis: Redis): number =>
  (redis as unknown as { commandQueue?: { length: number } }).commandQueue?.length ?? 0;

/**
 * Makes every command sent on `redis` (pipelines and scripts included, which all pass through
 * sendCommand) while replies are pending hold the socket for the rest of its turn; a command
 * sent to an idle connection leaves at once. Idempotent; answers the same client.
 */
export function batchWritesPerTurn(redis: Redis): Redis {
  const marked = redis as Redis & { [BATCHED]?: true };
  if (marked[BATCHED]) return redis;
  // A cluster client writes to one socket per node, which it picks inside sendCommand (and a
  // wrapper that dropped its third argument, the node, broke it): no batching there.
  if (isCluster(redis)) return redis;
  marked[BATCHED] = true;
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    if (awaitingReplies(redis) > 0) holdWritesThisTurn(redis);
    return send(command, stream);
  };
  return redis;
}
