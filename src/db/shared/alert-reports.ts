import { OUTBOX_STALE_AFTER_MS, type AlertReports, type OutboxBacklog, type OutboxFailure } from '../../domain/alert-reports.js';
import type { SqlExecutor } from './executor.js';
import { byDialect, statement } from './statement.js';

/** A failed outbox row as the failures statement reads it (`at` in epoch ms). */
type FailureRow = Omit<OutboxFailure, 'at'> & { at: number };
type StateCount = { state: string; n: number };

const PER_CHANNEL = statement<Record<string, never>, { channelId: string; n: number }>(
  'SELECT channel_id AS "channelId", count(*) AS n FROM alerts GROUP BY channel_id',
);
/** Sums are cast back to bigint on both engines: PostgreSQL's sum of a bigint is `numeric`, which `pg` hands over as a string. */
const distinctBytes = (owner: 'a.channel_id' | 'c.workspace_id') =>
  statement<Record<string, never>, { owner: string; bytes: number }>(
    `SELECT owner, CAST(sum(size) AS BIGINT) AS bytes FROM (
       SELECT DISTINCT ${owner} AS owner, att.media_key, att.size
       FROM alert_attachments att JOIN alerts a ON a.id = att.alert_id JOIN channels c ON c.id = a.channel_id) AS files
     GROUP BY owner`,
  );
const CHANNEL_BYTES = distinctBytes('a.channel_id');
const WORKSPACE_BYTES = distinctBytes('c.workspace_id');
// A media key names its bytes, so rows sharing a key share one file: count each file once.
const MEDIA_BYTES = statement<Record<string, never>, { bytes: number }>(
  'SELECT CAST(coalesce(sum(size), 0) AS BIGINT) AS bytes FROM (SELECT max(size) AS size FROM alert_attachments GROUP BY media_key) AS files',
);
// One range scan of notification_jobs_due_idx (state, next_attempt_at): cheap enough for every probe and scrape.
const BACKLOG = statement<{ now: number; staleBefore: number }, { pending: number; stale: number; oldest: number | null }>(
  `SELECT count(*) AS pending,
          count(*) FILTER (WHERE next_attempt_at <= :now AND next_attempt_at <= :staleBefore) AS stale,
          min(next_attempt_at) FILTER (WHERE next_attempt_at <= :now) AS oldest
   FROM notification_jobs WHERE state = 'pending'`,
);
const byState = (table: 'notification_jobs' | 'notification_deliveries' | 'notification_digests' | 'quiet_digests' | 'push_deliveries') =>
  statement<Record<string, never>, StateCount>(`SELECT state, count(*) AS n FROM ${table} GROUP BY state`);
const JOB_STATES = byState('notification_jobs');
const DELIVERY_STATES = byState('notification_deliveries');
const DIGEST_STATES = byState('notification_digests');
const QUIET_DIGEST_STATES = byState('quiet_digests');
const PUSH_STATES = byState('push_deliveries');
/** Failed e-mail deliveries, digests, Web Push deliveries and jobs, newest first, with the recipient's address. */
const FAILURES = statement<{ limit: number }, FailureRow>(
  `SELECT 'delivery' AS what, d.job_id AS "jobId", NULL AS "digestId", d.user_id AS "userId", u.email, d.alert_id AS "alertId",
          d.attempts, d.last_error AS "lastError", d.updated_at AS at
   FROM notification_deliveries d LEFT JOIN users u ON u.id = d.user_id WHERE d.state = 'failed'
   UNION ALL
   SELECT 'digest', NULL, g.id, g.user_id, u.email, NULL, g.attempts, g.last_error, g.updated_at
   FROM notification_digests g LEFT JOIN users u ON u.id = g.user_id WHERE g.state = 'failed'
   UNION ALL
   SELECT 'quiet-digest', NULL, q.id, q.user_id, u.email, NULL, q.attempts, q.last_error, q.updated_at
   FROM quiet_digests q LEFT JOIN users u ON u.id = q.user_id WHERE q.state = 'failed'
   UNION ALL
   SELECT 'push', p.job_id, NULL, p.user_id, u.email, p.alert_id, p.attempts, p.last_error, p.updated_at
   FROM push_deliveries p LEFT JOIN users u ON u.id = p.user_id WHERE p.state = 'failed'
   UNION ALL
   SELECT 'job', j.id, NULL, NULL, NULL, j.alert_id, j.attempts, j.last_error, j.created_at
   FROM notification_jobs j WHERE j.state = 'failed'
   ORDER BY at DESC LIMIT :limit`,
);
/** The UTC day of an epoch-ms column: the one spelling that differs between the engines. */
const PER_DAY = byDialect<{ workspaceId: string; sinceMs: number }, { day: string; channelId: string; count: number }>(
  (dialect) => `SELECT ${
    dialect.engine === 'sqlite'
      ? "strftime('%Y-%m-%d', al.created_at / 1000, 'unixepoch')"
      : "to_char(to_timestamp(al.created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
  } AS day, al.channel_id AS "channelId", count(*) AS count
   FROM alerts al JOIN channels c ON c.id = al.channel_id
   WHERE c.workspace_id = :workspaceId AND al.created_at >= :sinceMs GROUP BY 1, 2 ORDER BY 1, 2`,
);

const PER_MONTH = byDialect<{ workspaceId: string }, { month: string; channelId: string; count: number }>(
  (dialect) => `SELECT ${
    dialect.engine === 'sqlite'
      ? "strftime('%Y-%m', al.created_at / 1000, 'unixepoch')"
      : "to_char(to_timestamp(al.created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM')"
  } AS month, al.channel_id AS "channelId", count(*) AS count
   FROM alerts al JOIN channels c ON c.id = al.channel_id
   WHERE c.workspace_id = :workspaceId GROUP BY 1, 2 ORDER BY 1 DESC, 2`,
);

const countsOf = (rows: StateCount[]) => Object.fromEntries(rows.map((row) => [row.state, row.n]));

/**
 * Counts and sizes over the alert tables for `admin stats`, `admin notify status`, /readyz,
 * /metrics and the dashboard's usage chart, on either engine
 * (test/cluster/alert-reports-contract.test.ts). Read-only, so outside the group commit; each is
 * an index scan or one GROUP BY.
 */
export class SqlAlertReports implements AlertReports {
  constructor(private readonly database: SqlExecutor) {}

  async alertsPerChannel() {
    const rows = await this.database.all(PER_CHANNEL, {});
    return new Map(rows.map((row) => [row.channelId, row.n]));
  }

  async mediaBytesBy(owner: 'channel' | 'workspace') {
    const rows = await this.database.all(owner === 'channel' ? CHANNEL_BYTES : WORKSPACE_BYTES, {});
    return new Map(rows.map((row) => [row.owner, row.bytes]));
  }

  async mediaBytes() {
    return (await this.database.value(MEDIA_BYTES, {})) ?? 0;
  }

  async outboxBacklog(now: number): Promise<OutboxBacklog> {
    const row = await this.database.get(BACKLOG, { now, staleBefore: now - OUTBOX_STALE_AFTER_MS });
    if (!row) return { pending: 0, stale: 0, oldestDueMs: 0 };
    return { pending: row.pending, stale: row.stale, oldestDueMs: row.oldest === null ? 0 : now - row.oldest };
  }

  async outboxStatus(failureLimit: number) {
    const failures = await this.database.all(FAILURES, { limit: failureLimit });
    return {
      jobs: countsOf(await this.database.all(JOB_STATES, {})),
      deliveries: countsOf(await this.database.all(DELIVERY_STATES, {})),
      digests: countsOf(await this.database.all(DIGEST_STATES, {})),
      quietDigests: countsOf(await this.database.all(QUIET_DIGEST_STATES, {})),
      pushes: countsOf(await this.database.all(PUSH_STATES, {})),
      failures: failures.map((row) => ({ ...row, at: new Date(row.at).toISOString() })),
    };
  }

  alertsPerDay(workspaceId: string, sinceMs: number) {
    return this.database.all(PER_DAY, { workspaceId, sinceMs });
  }

  alertsPerMonth(workspaceId: string) {
    return this.database.all(PER_MONTH, { workspaceId });
  }
}
