import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/conformance-reporter.ts', './test/support/summary-reporter.ts'],
    // Locations let the conformance report link each requirement's tests to their lines.
    includeTaskLocation: true,
  },
});
