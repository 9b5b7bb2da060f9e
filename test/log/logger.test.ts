import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { LogLevel } from '../../src/config/index.js';
import { createBufferedSink, createLogger, LOG_FLUSH_CHARS } from '../../src/log/logger.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What a child script writes on stderr once it has loaded and starts logging. */
const STARTED = 'started';

/**
 * Runs `script` in a child node process (tsx), answering its stdout, stderr and exit code.
 * `lagMs`: the parent reads nothing until that long after the child says STARTED on stderr, as
 * a busy collector (timed from then, not from the spawn, which loading tsx can take longer than).
 */
function runChild(script: string, lagMs = 0): Promise<{ out: string; err: string; code: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  if (lagMs > 0) child.stdout.pause();
  child.stderr.on('data', (d: Buffer) => {
    const started = lagMs > 0 && !err.includes(STARTED);
    err += d.toString();
    if (started && err.includes(STARTED)) setTimeout(() => child.stdout.resume(), lagMs);
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ out, err, code })));
}

describe('buffered sink', () => {
  it('writes the lines of one event-loop turn in one chunk, in order, after the turn', async () => {
    const chunks: string[] = [];
    const { sink } = createBufferedSink((c) => chunks.push(c));
    sink('one');
    sink('two');
    sink('three');
    expect(chunks).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(chunks).toEqual(['one\ntwo\nthree\n']);
    sink('four');
    await new Promise((r) => setImmediate(r));
    expect(chunks).toEqual(['one\ntwo\nthree\n', 'four\n']);
  });

  it('writes at once beyond the size bound, and on flush()', () => {
    const chunks: string[] = [];
    const buffered = createBufferedSink((c) => chunks.push(c));
    const big = 'x'.repeat(LOG_FLUSH_CHARS);
    buffered.sink('small');
    buffered.sink(big);
    expect(chunks).toEqual([`small\n${big}\n`]);
    buffered.sink('last');
    buffered.flush();
    expect(chunks).toEqual([`small\n${big}\n`, 'last\n']);
    buffered.flush();
    expect(chunks).toHaveLength(2);
  });
});

describe('stdout logger', () => {
  it('loses no line when the process exits right after logging (process.exit), even while the reader lags', async () => {
    // 5000 lines (~450 KB) overflow the pipe while the parent reads nothing for 500 ms; with
    // process.stdout, most of them were still queued in memory when process.exit() dropped them.
    // Touching process.stdout first makes the descriptor non-blocking, as in any real process.
    const { out, err, code } = await runChild(
      `
      import { createLogger } from './src/log/logger.ts';
      void process.stdout;
      const log = createLogger('info').child({ process: 'test' });
      process.stderr.write('${STARTED}');
      for (let i = 0; i < 5000; i++) log.info('request', { n: i });
      log.debug('not at info level');
      process.exit(3);
    `,
      500,
    );
    expect(code).toBe(3);
    expect(err).toBe(STARTED); // nothing dropped
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(5000);
    lines.forEach((line, i) => {
      expect(JSON.parse(line)).toMatchObject({ level: 'info', msg: 'request', process: 'test', n: i });
    });
  });

  it('loses no line and keeps their order when the lines of many turns are still being written at process.exit', async () => {
    // Written over many event-loop turns while the reader lags, so that writes are under way
    // when the process exits: pino's asynchronous destination lost or reordered a chunk here.
    const { out, err, code } = await runChild(
      `
      import { createLogger } from './src/log/logger.ts';
      void process.stdout;
      const log = createLogger('info').child({ process: 'test' });
      process.stderr.write('${STARTED}');
      let n = 0;
      const turn = () => {
        for (let i = 0; i < 50 && n < 20000; i++, n++) log.info('request', { n, pad: 'x'.repeat(60) });
        if (n < 20000) setImmediate(turn);
        else process.exit(0);
      };
      turn();
    `,
      300,
    );
    expect(code).toBe(0);
    expect(err).toBe(STARTED); // nothing dropped
    const ns = out
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { n: number }).n);
    expect(ns).toEqual(Array.from({ length: 20000 }, (_, i) => i));
  });

  it('writes the lines when the process ends on its own', async () => {
    const { out, code } = await runChild(`
      import { createLogger } from './src/log/logger.ts';
      createLogger('debug').warn('bye', { error: new Error('boom') });
    `);
    expect(code).toBe(0);
    const entry = JSON.parse(out);
    expect(entry).toMatchObject({ level: 'warn', msg: 'bye', error: { name: 'Error', message: 'boom' } });
  });

  it('writes nothing below its level', () => {
    const lines: string[] = [];
    const log = createLogger('warn', (l) => lines.push(l));
    log.info('quiet');
    log.error('loud');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['loud']);
  });
});

describe('line shape', () => {
  const capture = (level: LogLevel = 'debug') => {
    const lines: string[] = [];
    return { lines, log: createLogger(level, (l) => lines.push(l)) };
  };
  const parse = (line: string | undefined) => JSON.parse(line ?? 'null') as Record<string, unknown>;

  it('is one JSON object per line: level as a word, ISO time, msg, the base fields and the fields, nothing else', () => {
    const { lines, log } = capture();
    const before = Date.now();
    log.child({ process: 'web' }).info('request', {
      request_id: 'r-1',
      method: 'POST',
      route: null,
      path: '/api/v3/x',
      status: 200,
      duration_ms: 1.25,
      nested: { a: [1, 'two'] },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    const { time, ...rest } = parse(lines[0]);
    expect(rest).toEqual({
      level: 'info',
      msg: 'request',
      process: 'web',
      request_id: 'r-1',
      method: 'POST',
      route: null,
      path: '/api/v3/x',
      status: 200,
      duration_ms: 1.25,
      nested: { a: [1, 'two'] },
    });
    expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(time as string)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(time as string)).toBeLessThanOrEqual(Date.now());
  });

  it('labels each level, and a logger writes its level and those above', () => {
    for (const [level, expected] of [
      ['debug', ['debug', 'info', 'warn', 'error']],
      ['info', ['info', 'warn', 'error']],
      ['warn', ['warn', 'error']],
      ['error', ['error']],
    ] as const) {
      const { lines, log } = capture(level);
      const child = log.child({ c: 1 });
      for (const l of [log, child]) {
        l.debug('debug');
        l.info('info');
        l.warn('warn');
        l.error('error');
      }
      const parsed = lines.map(parse);
      expect(parsed.map((e) => e.level)).toEqual([...expected, ...expected]);
      expect(parsed.map((e) => e.msg)).toEqual([...expected, ...expected]);
    }
  });

  it('serialises an Error under any key with name, message, stack and its causes', () => {
    const { lines, log } = capture();
    const root = new RangeError('root cause');
    const err = new TypeError('boom', { cause: root });
    const plain = new Error('plain', { cause: 'a string' });
    log.error('failed', { error: err, other: plain, n: 1 });
    expect(parse(lines[0])).toMatchObject({
      msg: 'failed',
      n: 1,
      error: {
        name: 'TypeError',
        message: 'boom',
        stack: err.stack,
        cause: { name: 'RangeError', message: 'root cause', stack: root.stack },
      },
      other: { name: 'Error', message: 'plain', stack: plain.stack, cause: 'a string' },
    });
    expect(Object.keys(parse(lines[0]).error as object)).toEqual(['name', 'message', 'stack', 'cause']);
  });

  it("children add their fields to their parent's; a field given with a line wins over a base field", () => {
    const { lines, log } = capture();
    const child = log.child({ process: 'worker', a: 1 }).child({ b: 2 });
    child.info('one');
    child.info('two', { a: 'given' });
    log.info('parent');
    expect(parse(lines[0])).toMatchObject({ msg: 'one', process: 'worker', a: 1, b: 2 });
    expect(parse(lines[1])).toMatchObject({ msg: 'two', a: 'given', b: 2 });
    expect(parse(lines[2])).not.toHaveProperty('process');
  });

  it('keeps a message with quotes, newlines and non-ASCII text on one line, intact', () => {
    const { lines, log } = capture();
    const msg = 'say "hi"\nthen \u4f60\u597d \\ done';
    log.warn(msg);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(parse(lines[0]).msg).toBe(msg);
  });
});
