// `npm run bench:log`: the cost of one request log line (src/api/request-log.ts, through a child
// logger with the process's base fields) for Herald's logger (pino formatting, lines written once
// per event-loop turn, synchronously: src/log/logger.ts) against the hand-written logger it
// replaced (bench/lib/hand-written-logger.ts, same write path) and against pino writing to fd 1
// through sonic-boom, batched and asynchronous (minLength 4096, sync: false) and synchronous
// (sync: true). Each arm runs in its own child process with stdout on /dev/null and on a pipe
// read by `cat > /dev/null`; the child logs BENCH_LOG_LINES lines, BENCH_LOG_PER_TURN per
// event-loop turn (requests answered in the same turn), then calls process.exit(0) at once, and
// reports its CPU time (all threads) and wall time up to the end of the final flush. A no-op
// logger's arm gives the harness's own cost, which is subtracted. Rounds are interleaved and the
// order of the arms rotates, so that a busy machine hits all of them alike; prints the median per
// arm and its ratio to the hand-written logger's.
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { logRequest } from '../src/api/request-log.js';
import { writeAllSync } from '../src/log/fd-writer.js';
import {
  createBufferedSink,
  createLogger,
  type Logger,
  type LogSink,
  pinoLogger,
} from '../src/log/logger.js';
import { createHandWrittenLogger } from './lib/hand-written-logger.js';

const ARMS = ['none', 'hand-written', 'herald', 'pino-async', 'pino-sync'] as const;
type Arm = (typeof ARMS)[number];
const OUTPUTS = ['/dev/null', 'pipe to cat'] as const;
type Output = (typeof OUTPUTS)[number];

const LINES = Number(process.env.BENCH_LOG_LINES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_TURN_LIST = (process.env.BENCH_LOG_PER_TURN ?? '1,20').split(',').map(Number);

interface Result {
  readonly cpuUs: number;
  readonly wallUs: number;
}

/** The write path of Herald's stdout sink, for the hand-written logger. */
function stdoutSink(): LogSink {
  const buffered = createBufferedSink((chunk) => writeAllSync(1, chunk));
  process.on('exit', buffered.flush);
  return buffered.sink;
}

function loggerFor(arm: Arm): Logger {
  switch (arm) {
    case 'none': {
      const none: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => none };
      return none;
    }
    case 'hand-written':
      return createHandWrittenLogger('info', stdoutSink());
    case 'herald':
      return createLogger('info');
    case 'pino-async':
      return pinoLogger('info', pino.destination({ dest: 1, minLength: 4096, sync: false }));
    case 'pino-sync':
      return pinoLogger('info', pino.destination({ dest: 1, sync: true }));
  }
}

/** The child: logs, exits at once, and says on stderr what it cost up to the end of the flush. */
function child(arm: Arm, perTurn: number): void {
  void process.stdout; // as in any real process: makes a pipe on fd 1 non-blocking
  const log = loggerFor(arm).child({ process: 'web' });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // Registered after the logger's own flush on exit, so it runs after it.
  process.on('exit', () => {
    const cpu = process.cpuUsage(cpu0);
    const result: Result = { cpuUs: cpu.user + cpu.system, wallUs: (performance.now() - t0) * 1000 };
    writeSync(2, `${JSON.stringify(result)}\n`);
  });
  let n = 0;
  const turn = (): void => {
    for (let i = 0; i < perTurn && n < LINES; i++, n++) {
      logRequest(log, {
        requestId: `req-${n}`,
        method: 'POST',
        route: '/api/v3/message/send-pipemsg',
        path: '/api/v3/message/send-pipemsg',
        status: 200,
        startedAt: performance.now() - 1.5,
      });
    }
    if (n < LINES) setImmediate(turn);
    else process.exit(0);
  };
  turn();
}

const self = fileURLToPath(import.meta.url);

function run(arm: Arm, output: Output, perTurn: number): Promise<Result> {
  const node = [process.execPath, '--import', 'tsx', self].map((w) => `'${w}'`).join(' ');
  const command = output === '/dev/null' ? `exec ${node} > /dev/null` : `${node} | cat > /dev/null`;
  const proc = spawn('sh', ['-c', command], {
    env: { ...process.env, BENCH_LOG_CHILD: arm, BENCH_LOG_PER_TURN: String(perTurn) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) =>
    proc.on('close', (code) => {
      const last = err.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{'))
        reject(new Error(`${arm} (${output}) failed (${code}):\n${err}`));
      else resolve(JSON.parse(last) as Result);
    }),
  );
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

async function main(): Promise<void> {
  console.log(
    `${LINES} request lines per run, ${ROUNDS} interleaved rounds; µs per line, net of the no-op arm`,
  );
  for (const perTurn of PER_TURN_LIST) {
    for (const output of OUTPUTS) {
      const cpu = new Map<Arm, number[]>(ARMS.map((a) => [a, []]));
      const wall = new Map<Arm, number[]>(ARMS.map((a) => [a, []]));
      for (let r = 0; r < ROUNDS; r++) {
        for (let i = 0; i < ARMS.length; i++) {
          const arm = ARMS[(i + r) % ARMS.length] as Arm;
          const res = await run(arm, output, perTurn);
          cpu.get(arm)?.push(res.cpuUs / LINES);
          wall.get(arm)?.push(res.wallUs / LINES);
        }
      }
      const net = (m: Map<Arm, number[]>, arm: Arm): number =>
        median(m.get(arm) ?? []) - median(m.get('none') ?? []);
      console.log(`\n${perTurn} line(s) per turn, stdout ${output}:`);
      console.log(
        `  harness alone (no-op logger): CPU ${median(cpu.get('none') ?? []).toFixed(2)} µs, wall ${median(wall.get('none') ?? []).toFixed(2)} µs`,
      );
      for (const arm of ARMS.slice(1)) {
        const c = net(cpu, arm);
        const w = net(wall, arm);
        console.log(
          `  ${arm.padEnd(12)} CPU ${c.toFixed(2).padStart(6)} µs (${(c / net(cpu, 'hand-written')).toFixed(2)}x)` +
            `  wall ${w.toFixed(2).padStart(6)} µs (${(w / net(wall, 'hand-written')).toFixed(2)}x)` +
            `  CPU per round: ${(cpu.get(arm) ?? []).map((x) => x.toFixed(2)).join(' ')}`,
        );
      }
    }
  }
}

const childArm = process.env.BENCH_LOG_CHILD as Arm | undefined;
if (childArm) child(childArm, Number(process.env.BENCH_LOG_PER_TURN ?? 1));
else await main();
