import pino from 'pino';
import type { LogLevel } from '../config/index.js';
import { type WriteFailure, writeAllSync } from './fd-writer.js';

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

/** Errors are logged with name, message, stack and cause; plain JSON.stringify would drop them. */
function serialise(value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: serialise(value.cause) };
  }
  return value;
}

/** Any field that holds an Error, whatever its key, as before pino (its own serializer goes by key). */
function serialiseFields(fields: Record<string, unknown>): Record<string, unknown> {
  for (const k in fields) {
    if (fields[k] instanceof Error) {
      const copy: Record<string, unknown> = {};
      for (const key in fields) copy[key] = serialise(fields[key]);
      return copy;
    }
  }
  return fields;
}

/**
 * pino, shaped as the lines have always been, so that operators' queries keep working:
 * `{"level":"info","time":"<ISO 8601>",...base fields,...fields,"msg":"..."}`, no pid or hostname.
 */
const OPTIONS: pino.LoggerOptions = {
  base: null,
  messageKey: 'msg',
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }), log: serialiseFields },
};

function wrap(l: pino.Logger): Logger {
  return {
    debug: (msg, fields) => (fields === undefined ? l.debug(msg) : l.debug(fields, msg)),
    info: (msg, fields) => (fields === undefined ? l.info(msg) : l.info(fields, msg)),
    warn: (msg, fields) => (fields === undefined ? l.warn(msg) : l.warn(fields, msg)),
    error: (msg, fields) => (fields === undefined ? l.error(msg) : l.error(fields, msg)),
    child: (fields) => wrap(l.child(fields)),
  };
}

/** A Logger over pino with Herald's line shape, writing to `destination` (one line per write). */
export function pinoLogger(level: LogLevel, destination: pino.DestinationStream): Logger {
  return wrap(pino({ ...OPTIONS, level }, destination));
}

/**
 * Structured JSON logs: pino formats, and its lines go to `sink`, by default the batched
 * synchronous stdout sink above, which keeps the guarantees on exit and on a stalled reader that
 * pino's own destinations do not (docs/logging.md). Callers never pass secrets: request logging
 * records the route and path, never the query string or headers, because pipe tokens travel in
 * the query.
 */
export function createLogger(level: LogLevel, sink: LogSink = stdoutSink(), base: LogFields = {}): Logger {
  // pino hands over each line with its newline; sinks take the line alone.
  const log = pinoLogger(level, { write: (line) => sink(line.slice(0, -1)) });
  return Object.keys(base).length > 0 ? log.child(base) : log;
}
