import { type Proc, startEntry, waitForOutput } from './spawn.js';
import { TEST_ADMIN_TOKEN, type TestApp } from './test-app.js';

/**
 * Worker processes beside a test app: `node worker.js` from the compiled tree
 * (helpers/built-tree.ts), so that a SIGKILL reaches the worker itself, on the app's database and
 * Redis prefix. One instance per test file; killLeftovers() in its afterEach or afterAll, since
 * a worker left running by a failed test would take the next test's jobs.
 */
export class WorkerProcesses {
  private readonly running: Proc[] = [];

  /** `defaults`: settings of every worker this file starts (start's `env` wins over them). */
  constructor(
    private readonly app: TestApp,
    private readonly defaults: Readonly<Record<string, string>> = {},
  ) {}

  /** Starts a worker; its log lines are in `out` (stdout), anything else it prints in `err`. */
  start(env: Readonly<Record<string, string>> = {}): Proc {
    const prefix = this.app.config.redisPrefix;
    // The app's database: startTestApp names it after the prefix (helpers/test-app.ts).
    const mongo = new URL(this.app.config.mongoUrl);
    mongo.pathname = `/herald_test_${prefix.replace(/^herald-test-/, '')}`;
    const proc = startEntry('worker', {
      MONGO_URL: mongo.toString(),
      REDIS_PREFIX: prefix,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_TIMEOUT_MS: '5000',
      ...this.defaults,
      ...env,
    });
    this.running.push(proc);
    return proc;
  }

  /** Kills (SIGKILL) every worker still running and waits for them to exit. */
  async killLeftovers(): Promise<void> {
    const left = this.running
      .splice(0)
      .filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    for (const p of left) p.child.kill('SIGKILL');
    await Promise.all(left.map((p) => p.exited));
  }
}

/** Waits until `worker` logs that it started; fails at once if it exits first. */
export function workerStarted(worker: Proc, timeoutMs = 20_000): Promise<void> {
  return waitForOutput(worker, '"worker started"', timeoutMs);
}

/** The port of `worker`'s GET /metrics, from its log. */
export function workerMetricsPort(worker: Proc): number {
  const line = worker.out
    .join('')
    .split('\n')
    .find((l) => l.includes('"metrics listening"'));
  return Number((JSON.parse(line ?? '{}') as { port?: number }).port);
}
