import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when it is older than src/: process-level tests run the compiled entry points.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own process: tests open real SQLite files, servers and sockets.
    pool: 'forks',
    env: { LOG_LEVEL: 'silent' },
  },
});
