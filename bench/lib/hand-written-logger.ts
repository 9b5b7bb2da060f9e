import type { LogLevel } from '../../src/config/index.js';
import type { LogFields, Logger, LogSink } from '../../src/log/logger.js';

/*
 * The logger that pino replaced in src/log/logger.ts (formatting with JSON.stringify), kept as
 * `npm run bench:log`'s reference so that the comparison can be run again.
 */

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function serialise(value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: serialise(value.cause) };
  }
  return value;
}

export function createHandWrittenLogger(level: LogLevel, sink: LogSink, base: LogFields = {}): Logger {
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
    child: (fields) => createHandWrittenLogger(level, sink, { ...base, ...fields }),
  };
}
