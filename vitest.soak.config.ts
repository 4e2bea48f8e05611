import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * `npm run test:soak`: the reliability suite at full strength: 20,000
 * generated hostile requests and 20 kill -9 trials (see test/reliability/).
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: ['test/reliability/**/*.test.ts'],
      env: { FUZZ_RUNS: '10000', CRASH_TRIALS: '20' },
      testTimeout: 600_000,
    },
  }),
);
