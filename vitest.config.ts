import { defineConfig } from 'vitest/config';

/**
 * Pure tests: no Redis, no store (test/helpers/no-services.ts refuses a connection to either).
 * A new test file that needs services goes nowhere here: it lands in `integration` by default.
 */
const unit = [
  'test/architecture.test.ts',
  'test/api/console/headers.test.ts',
  'test/api/console/throttle-address.test.ts',
  'test/api/lang.test.ts',
  'test/api/validation.test.ts',
  'test/api/pipe-request.test.ts',
  'test/api/wire-body.test.ts',
  'test/config/**/*.test.ts',
  'test/console/**/*.test.tsx',
  'test/domain/deliveries/failure-text.test.ts',
  'test/domain/deliveries/lifecycle.test.ts',
  'test/domain/deliveries/recent-counts.test.ts',
  'test/domain/deliveries/records.test.ts',
  'test/domain/gallery.test.ts',
  'test/domain/permissions.test.ts',
  'test/domain/pipe-captures.test.ts',
  'test/domain/pipe-grouping.test.ts',
  'test/domain/pipe-routing.test.ts',
  'test/domain/pipe-signatures.test.ts',
  'test/domain/pipes-cache.test.ts',
  'test/domain/tokens.test.ts',
  'test/domain/worker-heartbeats.test.ts',
  'test/errors/**/*.test.ts',
  'test/log/**/*.test.ts',
  'test/queue/job-input.test.ts',
  'test/redis/partitions.test.ts',
  'test/render/**/*.test.ts',
  'test/store/db-errors.test.ts',
  'test/text/**/*.test.ts',
  'test/workers/delivery/backoff.test.ts',
  'test/workers/render-pool/render-pool.test.ts',
  'test/workers/sinks/**/*.test.ts',
  'test/workers/utilisation.test.ts',
  'test/metrics/**/*.test.ts',
];

/** Tests that spawn web or worker processes (or redis-server) on the real services. */
const processes = [
  'test/bin/processes.test.ts',
  'test/redis/redis-policy.test.ts',
  'test/redis/failover.test.ts',
  'test/workers/processes.test.ts',
  'test/workers/shutdown.test.ts',
  'test/workers/grouping-processes.test.ts',
  'test/workers/stalled.test.ts',
  'test/workers/in-doubt.test.ts',
];

/** Tests that judge a bot's rate by the arrival times at a relay, across worker instances. */
const rates = ['test/workers/shared-limit.test.ts', 'test/workers/redis-stall.test.ts'];
/** The one whose burst is judged within 50 ms at the relay: run alone, after the others. */
const upstreamRate = ['test/workers/upstream-rate.test.ts'];

/** Journeys in a real headless chromium over spawned web and worker processes. */
const browser = ['test/browser/**/*.test.ts'];

/** Starts (or finds) the real Redis and FerretDB once, before a project that uses them runs. */
const services = ['test/global-setup.ts'];

export default defineConfig({
  // The console's components (console/src) are Preact JSX.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // The machine has 2 cores; projects that mostly wait run more files at a time (below).
    maxWorkers: 2,
    // Each worker imports the module graph once and runs its files on it, instead of importing
    // it again for every file: most of the suite's time was import (integration: 77 s -> 31 s,
    // unit: about 55 s -> 35 s, on the busy 2-core machine). Files keep no global state: each
    // opens its own app, database and Redis prefix and closes them.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: unit,
          setupFiles: ['test/helpers/no-services.ts'],
          // With the integration files, which mostly wait on timers, Redis and the store: six at
          // a time keep the 2 cores busy, where two left them half idle (docs/testing.md).
          sequence: { groupOrder: 1 },
          maxWorkers: 6,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unit, ...processes, ...rates, ...upstreamRate, ...browser],
          sequence: { groupOrder: 1 },
          maxWorkers: 6,
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
          // After the unit and integration files: these wait on lock lapses and restarts more
          // than they compute, so three run side by side.
          sequence: { groupOrder: 2 },
          maxWorkers: 3,
        },
      },
      {
        extends: true,
        test: {
          name: 'rates',
          include: rates,
          globalSetup: services,
          // Last, and only beside each other: CPU starvation by other files' processes (the
          // 1,000-alert storm test beside the shared-limit test) bunched arrivals at the relay
          // into false breaches. These three use little CPU, and pass side by side also with a
          // CPU burner running (docs/testing.md).
          sequence: { groupOrder: 3 },
          maxWorkers: 3,
        },
      },
      {
        extends: true,
        test: {
          name: 'upstream-rate',
          include: upstreamRate,
          globalSetup: services,
          // Alone: other files' processes starting beside it delay a burst past its 50 ms of
          // slack at the relay (docs/testing.md).
          sequence: { groupOrder: 4 },
          maxWorkers: 1,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: browser,
          globalSetup: [...services, 'test/browser/global-setup.ts'],
          testTimeout: 60_000,
          // A file's stack (web, worker and chromium) can take a minute and more to start on a busy
          // 2-core machine: each process compiles the sources with tsx as it starts.
          hookTimeout: 180_000,
          // What the page shows comes with its refreshes (every 1 to 5 s) and the worker's pace.
          expect: { poll: { timeout: 20_000, interval: 100 } },
        },
      },
    ],
  },
});
