import { defineConfig } from 'vitest/config';

/**
 * `npm run test:soak`: the reliability suite at full strength: 20,000
 * generated hostile requests and 20 kill -9 trials (see test/reliability/).
 * Same settings as vitest.config.ts otherwise (a merge would append to `include`).
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 30_000,
    pool: 'forks',
    env: { LOG_LEVEL: 'silent', FUZZ_RUNS: '10000', CRASH_TRIALS: '20' },
  },
});
