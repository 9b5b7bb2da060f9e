import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createBufferedSink, createLogger, LOG_FLUSH_CHARS } from '../../src/log/logger.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs a script in a child node process (tsx), answering its stdout and exit code. */
/** Runs `script` in a child; `lagMs`: the parent reads nothing for that long, as a busy collector. */
function runChild(script: string, lagMs = 0): Promise<{ out: string; code: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  if (lagMs > 0) {
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), lagMs);
  }
  return new Promise((resolve) => child.on('close', (code) => resolve({ out, code })));
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
    const { out, code } = await runChild(
      `
      import { createLogger } from './src/log/logger.ts';
      void process.stdout;
      const log = createLogger('info').child({ process: 'test' });
      for (let i = 0; i < 5000; i++) log.info('request', { n: i });
      log.debug('not at info level');
      process.exit(3);
    `,
      500,
    );
    expect(code).toBe(3);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(5000);
    lines.forEach((line, i) => {
      expect(JSON.parse(line)).toMatchObject({ level: 'info', msg: 'request', process: 'test', n: i });
    });
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
