import { OUTBOX_STALE_AFTER_MS, type AlertReports, type OutboxBacklog, type OutboxFailure } from '../../domain/alert-reports.js';
import type { SqlExecutor } from './executor.js';
import { byDialect, statement } from './statement.js';

/** A failed outbox row as the failures statement reads it (`at` in epoch ms). */
type FailureRow = Omit<OutboxFailure, 'at'> & { at: number };
type StateTable = 'notification_jobs' | 'notification_deliveries' | 'notification_digests' | 'push_deliveries';

const PER_CHANNEL = statement<Record<string, never>, { channelId: string; count: number }>(
  'SELECT channel_id AS "channelId", count(*) AS count FROM alerts GROUP BY channel_id',
);
// Sums cast to BIGINT: on PostgreSQL `sum` of a bigint is `numeric`, which `pg` hands over as a string.
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
const byState = (table: StateTable) => statement<Record<string, never>, { state: string; count: number }>(`SELECT state, count(*) AS count FROM ${table} GROUP BY state`);
const STATES = {
  jobs: byState('notification_jobs'),
  deliveries: byState('notification_deliveries'),
  digests: byState('notification_digests'),
  pushes: byState('push_deliveries'),
};
/** Failed e-mail deliveries, digests, Web Push deliveries and jobs, newest first, with the recipient's address. */
const FAILURES = statement<{ limit: number }, FailureRow>(
  `SELECT 'delivery' AS what, d.job_id AS "jobId", NULL AS "digestId", d.user_id AS "userId", u.email, d.alert_id AS "alertId",
          d.attempts, d.last_error AS "lastError", d.updated_at AS at
   FROM notification_deliveries d LEFT JOIN users u ON u.id = d.user_id WHERE d.state = 'failed'
   UNION ALL
   SELECT 'digest', NULL, g.id, g.user_id, u.email, NULL, g.attempts, g.last_error, g.updated_at
   FROM notification_digests g LEFT JOIN users u ON u.id = g.user_id WHERE g.state = 'failed'
   UNION ALL
   SELECT 'push', p.job_id, NULL, p.user_id, u.email, p.alert_id, p.attempts, p.last_error, p.updated_at
   FROM push_deliveries p LEFT JOIN users u ON u.id = p.user_id WHERE p.state = 'failed'
   UNION ALL
   SELECT 'job', j.id, NULL, NULL, NULL, j.alert_id, j.attempts, j.last_error, j.created_at
   FROM notification_jobs j WHERE j.state = 'failed'
   ORDER BY at DESC LIMIT :limit`,
);
const PER_DAY = byDialect<{ workspaceId: string; since: number }, { day: string; channelId: string; count: number }>(
  (dialect) => `SELECT ${dialect.utcDay('al.created_at')} AS day, al.channel_id AS "channelId", count(*) AS count
   FROM alerts al JOIN channels c ON c.id = al.channel_id
   WHERE c.workspace_id = :workspaceId AND al.created_at >= :since GROUP BY 1, 2 ORDER BY 1, 2`,
);

/**
 * Counts and sizes over the alert tables for `admin stats`, `admin notify status`, /readyz,
 * /metrics and the dashboard's usage chart, on either engine. Read-only, so outside the group
 * commit; each is an index scan or one GROUP BY.
 */
export class SqlAlertReports implements AlertReports {
  constructor(private readonly database: SqlExecutor) {}

  async alertsPerChannel() {
    return new Map((await this.database.all(PER_CHANNEL, {})).map((r) => [r.channelId, r.count]));
  }

  async mediaBytesBy(owner: 'channel' | 'workspace') {
    const rows = await this.database.all(owner === 'channel' ? CHANNEL_BYTES : WORKSPACE_BYTES, {});
    return new Map(rows.map((r) => [r.owner, r.bytes]));
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
    const count = async (table: keyof typeof STATES) => Object.fromEntries((await this.database.all(STATES[table], {})).map((r) => [r.state, r.count]));
    const failures = await this.database.all(FAILURES, { limit: failureLimit });
    return {
      jobs: await count('jobs'),
      deliveries: await count('deliveries'),
      digests: await count('digests'),
      pushes: await count('pushes'),
      failures: failures.map((r) => ({ ...r, at: new Date(r.at).toISOString() })),
    };
  }

  alertsPerDay(workspaceId: string, sinceMs: number) {
    return this.database.all(PER_DAY, { workspaceId, since: sinceMs });
  }
}
