import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts (or finds) the real Redis and FerretDB once for the whole run.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Integration files each own a database and a Redis prefix, so files may run in parallel;
    // the machine has 2 cores.
    maxWorkers: 2,
  },
});
