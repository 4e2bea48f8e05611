import { defineConfig } from 'vitest/config';

/**
 * The dashboard's server-side test files that hold no SQLite of their own run a second time on
 * PostgreSQL (test/dashboard/helpers.ts `startDashboard` reads TEST_ENGINE): sign-in, settings,
 * tokens, the feed and its live stream, search, usage, Web Push subscriptions, deletes. The
 * browser tests stay on SQLite (README "Running more than one node"). Without TEST_DATABASE_URL
 * that project is left out and a line says so; with CI=true it runs anyway and fails, so CI never
 * skips it silently.
 */
const DASHBOARD_ON_POSTGRES = [
  'test/dashboard/{auth,roles,usage,search-server,push,profile,feed-server,feed-merge,feed-live,compression,channel-delete}.test.ts',
];
const withPostgres = Boolean(process.env.TEST_DATABASE_URL) || Boolean(process.env.CI);
if (!withPostgres) console.warn('skipped: the dashboard server tests on PostgreSQL (project dashboard-on-postgres): TEST_DATABASE_URL is not set');

export default defineConfig({
  test: {
    // Builds dist/ when it is older than src/: process-level tests run the compiled entry points.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own process: tests open real SQLite files, servers and sockets.
    pool: 'forks',
    env: { LOG_LEVEL: 'silent' },
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts'] } },
      ...(withPostgres
        ? [{ extends: true as const, test: { name: 'dashboard-on-postgres', include: DASHBOARD_ON_POSTGRES, env: { LOG_LEVEL: 'silent', TEST_ENGINE: 'postgres' } } }]
        : []),
    ],
  },
});
