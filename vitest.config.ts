import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own process: tests open real SQLite files, servers and sockets.
    pool: 'forks',
    env: { LOG_LEVEL: 'silent' },
  },
});
