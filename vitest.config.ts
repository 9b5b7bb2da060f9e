import { defineConfig } from 'vitest/config';

/**
 * Pure tests: no Redis, no store (test/helpers/no-services.ts refuses a connection to either).
 * A new test file that needs services goes nowhere here: it lands in `integration` by default.
 */
const unit = [
  'test/api/lang.test.ts',
  'test/api/pipe-request.test.ts',
  'test/config/**/*.test.ts',
  'test/domain/permissions.test.ts',
  'test/domain/pipes-cache.test.ts',
  'test/domain/tokens.test.ts',
  'test/log/**/*.test.ts',
  'test/queue/job-input.test.ts',
  'test/render/**/*.test.ts',
  'test/store/db-errors.test.ts',
  'test/text/**/*.test.ts',
  'test/workers/backoff.test.ts',
  'test/workers/render-pool.test.ts',
  'test/workers/sinks/**/*.test.ts',
];

/** Tests that spawn web or worker processes (or redis-server) on the real services. */
const processes = [
  'test/bin/processes.test.ts',
  'test/redis/redis-policy.test.ts',
  'test/workers/processes.test.ts',
  'test/workers/stalled.test.ts',
];

/** Starts (or finds) the real Redis and FerretDB once, before a project that uses them runs. */
const services = ['test/global-setup.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // The machine has 2 cores.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: unit,
          setupFiles: ['test/helpers/no-services.ts'],
          // The files share one module graph per worker instead of importing it again each:
          // about 35 s instead of 55 s on a busy 2-core machine. They keep no global state.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unit, ...processes],
          // Integration files each own a database and a Redis prefix, so files may run in parallel.
          globalSetup: services,
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: processes,
          globalSetup: services,
        },
      },
    ],
  },
});
