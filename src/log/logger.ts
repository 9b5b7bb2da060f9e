import type { LogLevel } from '../config/index.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** Where log lines go; stdout in production (one JSON object per line), a buffer in tests. */
export type LogSink = (line: string) => void;

const stdoutSink: LogSink = (line) => {
  process.stdout.write(`${line}\n`);
};

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
export function createLogger(level: LogLevel, sink: LogSink = stdoutSink, base: LogFields = {}): Logger {
  const min = RANK[level];
  const write = (lvl: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[lvl] < min) return;
    const entry: Record<string, unknown> = { level: lvl, time: new Date().toISOString(), msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) entry[k] = serialise(v);
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
