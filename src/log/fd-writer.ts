import { writeSync } from 'node:fs';

/*
 * Synchronous writes to a file descriptor (the logger's stdout). process.stdout is not enough:
 * on a pipe whose reader lags (a log collector under load) Node queues writes in memory, and
 * process.exit() drops that queue, so the last lines of a process (its shutdown, the error that
 * ended it) were lost exactly when they mattered. Measured here: a child writing 2 MB to a pipe
 * its parent read a second late had 1.9 MB still queued when it exited, and lost it.
 *
 * A write here returns once the kernel has the bytes. The lines of one event-loop turn are
 * written together (logger.ts), so this is one system call per turn, not per line.
 */

/**
 * How long, in ms, one write keeps retrying while the descriptor's buffer is full (EAGAIN: a
 * non-blocking pipe or socket whose reader lags) before the chunk is dropped: a collector that
 * has stalled must not stall the service for good.
 */
export const FD_WRITE_STALL_MS = 10_000;

/** Pause between retries on a full buffer, in ms. */
const RETRY_PAUSE_MS = 1;

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Why a write gave up, for the caller to report elsewhere. */
export type WriteFailure = { readonly code: string; readonly droppedBytes: number };

/**
 * Writes all of `text` to `fd`, waiting out a full buffer up to FD_WRITE_STALL_MS. Never throws:
 * answers null once everything is written, or what was dropped and why (EPIPE: nobody reads any
 * more; EAGAIN: the reader stalled past the limit).
 */
export function writeAllSync(fd: number, text: string, stallMs = FD_WRITE_STALL_MS): WriteFailure | null {
  let bytes = Buffer.from(text, 'utf8');
  let deadline = 0;
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
      deadline = 0;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'UNKNOWN';
      if (code !== 'EAGAIN') return { code, droppedBytes: bytes.length };
      const now = Date.now();
      if (deadline === 0) deadline = now + stallMs;
      else if (now >= deadline) return { code, droppedBytes: bytes.length };
      Atomics.wait(pause, 0, 0, RETRY_PAUSE_MS);
    }
  }
  return null;
}
