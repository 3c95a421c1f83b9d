import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The store contract suites share one PostgreSQL database; each suite uses its own schema.
    pool: 'forks',
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
