import type { LogLevel } from '../config/index.js';
import { type WriteFailure, writeAllSync } from './fd-writer.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/**
 * Where log lines go: stdout in production (one JSON object per line, written once per
 * event-loop turn), a buffer in tests.
 */
export type LogSink = (line: string) => void;

/** Buffered lines beyond this many characters are written at once, without waiting for the tick. */
export const LOG_FLUSH_CHARS = 64 * 1024;

export interface BufferedSink {
  readonly sink: LogSink;
  /** Writes whatever is buffered, now. */
  flush(): void;
}

/**
 * Collects lines and hands them to `write` in one chunk per event-loop turn (setImmediate), or
 * at once beyond LOG_FLUSH_CHARS, instead of one write call per line: under load, the request
 * lines of all the responses of one turn cost one write. Lines keep their order. The caller
 * flushes on exit (createLogger's stdout sink does, on process 'exit', so process.exit() after
 * a shutdown loses nothing; only a SIGKILL can lose the current turn's lines).
 */
export function createBufferedSink(write: (chunk: string) => void): BufferedSink {
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    write(chunk);
  };
  return {
    flush,
    sink(line) {
      pending += `${line}\n`;
      if (pending.length >= LOG_FLUSH_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}

let stdout: BufferedSink | undefined;

const STDOUT_FD = 1;
const STDERR_FD = 2;

/** Said on stderr, since stdout is what failed (once per failed chunk; never the lines themselves). */
function reportDropped(f: WriteFailure): void {
  writeAllSync(
    STDERR_FD,
    `${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: 'log lines dropped', code: f.code, bytes: f.droppedBytes })}\n`,
    0,
  );
}

/** The process's one buffered stdout sink, flushed on 'exit'. */
function stdoutSink(): LogSink {
  if (!stdout) {
    // Written synchronously (fd-writer.ts): process.stdout queues writes in memory when a pipe's
    // reader lags, and process.exit() would drop them. So the flush in the 'exit' listener, and
    // every line before it, reaches the descriptor.
    const buffered = createBufferedSink((chunk) => {
      const failed = writeAllSync(STDOUT_FD, chunk);
      if (failed) reportDropped(failed);
    });
    process.on('exit', buffered.flush);
    stdout = buffered;
  }
  return stdout.sink;
}

/** Errors are logged with name, message and stack; plain JSON.stringify would drop them. */
function serialise(value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: serialise(value.cause) };
  }
  return value;
}

/**
 * Structured JSON logs. Callers never pass secrets: request logging records the route and path,
 * never the query string or headers, because pipe tokens travel in the query.
 */
export function createLogger(level: LogLevel, sink: LogSink = stdoutSink(), base: LogFields = {}): Logger {
  const min = RANK[level];
  const write = (lvl: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[lvl] < min) return;
    const entry: Record<string, unknown> = { level: lvl, time: new Date().toISOString(), msg, ...base };
    if (fields) for (const k in fields) entry[k] = serialise(fields[k]);
    sink(JSON.stringify(entry));
  };
  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    child: (fields) => createLogger(level, sink, { ...base, ...fields }),
  };
}
