import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/vite-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One fork more than cores: most test time is spent waiting on sockets, child processes and
    // PostgreSQL, so a third fork on a 2-core machine takes a suite run from about 10 to about 7 minutes.
    maxWorkers: availableParallelism() + 1,
    reporters: ['default', './test/support/conformance-reporter.ts', './test/support/summary-reporter.ts'],
    // Locations let the conformance report link each requirement's tests to their lines.
    includeTaskLocation: true,
  },
});
