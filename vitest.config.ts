import { defineConfig } from 'vitest/config';

/**
 * The engine-neutral HTTP-level test files run a second time on PostgreSQL (TEST_ENGINE=postgres:
 * `startDashboard` in test/dashboard/helpers.ts and `startHarness` in test/helpers/harness.ts
 * build the service through `openServices` on a fresh database): the dashboard's server side
 * (sign-in, roles, settings, tokens, the feed and its live stream, search, usage, Web Push, deletes),
 * the read API (pages, tokens and rate limits, search, exact unread counts), the webhook (payloads,
 * attachments, Idempotency-Key, workflow runs, avatars), the drop-in formats (Slack, Discord, GitHub,
 * Alertmanager, Grafana and their OpenAPI; Grafana and GitHub notified end to end), media files (the
 * grace period, the orphan sweep against uploads), problem documents for every error, hostile input
 * on every endpoint (hostile names, the generated webhook, read-API, drop-in format and Web Push
 * requests), no secret in any log line, request ids, metrics, readiness, retention, the live stream
 * (/api/stream: order, visibility, resume, revocation, limits, shutdown), e-mail and Web Push
 * notifications (recipients, content, retries, the flood guard, restarts and crashes, one-click
 * unsubscribe, the admin CLI's notify commands), a real process stopped by SIGTERM and killed by
 * kill -9 under load, the MCP endpoint and its stdio proxy (and their hostile input), the admin CLI
 * end to end (in-process and as child processes on the same DATABASE_URL) and alert ids across a
 * restart with the clock behind, and the client package and its `alertbridge` CLI (send, pages,
 * stream resume, the spawned binary). The browser tests and the `*-sqlite.test.ts` files (SQLite's file, FTS5 index and group commit, a grace period of 0, the
 * CLI's file and its data_version check) stay on SQLite (docs/cluster.md).
 * Without TEST_DATABASE_URL that project is left out and a line says so; with CI=true it runs
 * anyway and fails, so CI never skips it silently.
 */
const ON_POSTGRES = [
  'test/read-api/{alerts,auth,search,unread-counts,read-only-tokens,lifecycle}.test.ts',
  'test/webhook/{avatars,idempotency,attachments,payload,payload-hostile,workflow,dedup}.test.ts',
  'test/dashboard/{sso-oidc,sso-groups,sso-group-channels,sso-tokens,sso-proxy,auth,roles,silences,usage,search-server,push,profile,feed-server,feed-merge,lifecycle-server,feed-live,compression,channel-delete,unsubscribe,verified-addresses,sign-in-link-outbox,invitations,invitations-admin,redirect,sign-in-limit,usage-visibility,webhook-reveal,feed-first-alert,flash,forms-reload,quiet-hours,feed-chat-threads,discord-connect}.test.ts',
  'test/http/{hostile-names,error-mapping}.test.ts',
  'test/routes/{routes-cli,route-delivery,route-kinds,alert-deliveries,route-lifecycle,routes-dashboard,route-pause-notice}.test.ts',
  'test/formats/{http-chat,http-github,http-github-jobs,http-groups,openapi-formats,cli-signing,http-notified,http-lifecycle,http-first-resolved}.test.ts',
  'test/media/orphan-sweep.test.ts',
  'test/reliability/{fuzz-sso,secrets-in-logs-sso,media-grace,retention,fuzz,fuzz-formats,fuzz-push,fuzz-accounts,fuzz-invitations,fuzz-redirect,fuzz-feed,fuzz-silences,fuzz-routes,secrets-in-logs,shutdown,crash}.test.ts',
  'test/ops/{request-id,stream-shutdown,metrics,readiness}.test.ts',
  'test/notify/{stream,stream-limits,stream-revoke,email,push,flood,retry,recover-each-prune,dashboard-links,cli,crash,silences,quiet-hours}.test.ts',
  'test/{cli,cli-lifecycle,lib-ids}.test.ts',
  'test/escalation/{escalation,escalation-dashboard}.test.ts',
  'test/reliability/fuzz-escalation.test.ts',
  'test/heartbeats/{ping-http,cli,notify}.test.ts',
  'test/reliability/fuzz-heartbeats.test.ts',
  'test/mcp/{mcp-http,stdio}.test.ts',
  'test/reliability/fuzz-mcp.test.ts',
  'test/client/{send,api,stream,cli}.test.ts',
];
const withPostgres = Boolean(process.env.TEST_DATABASE_URL) || Boolean(process.env.CI);
if (!withPostgres) console.warn('skipped: the HTTP-level tests on PostgreSQL (project on-postgres): TEST_DATABASE_URL is not set');

export default defineConfig({
  test: {
    // Builds dist/ when it is older than src/: process-level tests run the compiled entry points.
    // Then the migrated databases the harnesses copy, SQLite's and (with PostgreSQL) PostgreSQL's (test/db-templates.ts).
    globalSetup: ['test/global-setup.ts', 'test/db-templates.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own process: tests open real SQLite files, servers and sockets.
    pool: 'forks',
    // Two files at a time even on 2 cores (vitest's default is cores − 1): most of a file's time is
    // waiting on sockets, PostgreSQL, SMTP and Chromium, not on the CPU.
    maxWorkers: 2,
    env: { LOG_LEVEL: 'silent' },
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts'] } },
      ...(withPostgres
        ? [{ extends: true as const, test: { name: 'on-postgres', include: ON_POSTGRES, env: { LOG_LEVEL: 'silent', TEST_ENGINE: 'postgres' } } }]
        : []),
    ],
  },
});
