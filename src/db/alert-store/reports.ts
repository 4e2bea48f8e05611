import type Database from 'better-sqlite3';
import { OUTBOX_STALE_AFTER_MS, type AlertReports, type OutboxBacklog, type OutboxFailure } from '../../domain/alert-reports.js';

/** A failed outbox row as the failures statement reads it (`at` in epoch ms). */
export type FailureRow = Omit<OutboxFailure, 'at'> & { at: number };

/**
 * Failed e-mail deliveries, digests, Web Push deliveries and jobs, newest first, with the
 * recipient's address: one statement for both engines (quoted aliases keep their case on
 * PostgreSQL; `limit` is the engine's placeholder).
 */
export const outboxFailuresSql = (limit: string) =>
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
   ORDER BY at DESC LIMIT ${limit}`;

/**
 * Counts and sizes over the alert tables for `admin stats`, `admin notify
 * status`, /readyz, /metrics and the dashboard's usage chart. Read-only, so
 * outside the group commit; each is an index scan or one GROUP BY.
 */
export class SqliteAlertReports implements AlertReports {
  private readonly s;

  constructor(sqlite: Database.Database) {
    const distinctBytes = (owner: 'a.channel_id' | 'c.workspace_id') =>
      sqlite.prepare<[], { owner: string; bytes: number }>(
        `SELECT owner, sum(size) AS bytes FROM (
           SELECT DISTINCT ${owner} AS owner, att.media_key, att.size
           FROM alert_attachments att JOIN alerts a ON a.id = att.alert_id JOIN channels c ON c.id = a.channel_id)
         GROUP BY owner`,
      );
    const byState = (table: 'notification_jobs' | 'notification_deliveries' | 'notification_digests' | 'push_deliveries') =>
      sqlite.prepare<[], { state: string; n: number }>(`SELECT state, count(*) AS n FROM ${table} GROUP BY state`);
    this.s = {
      perChannel: sqlite.prepare<[], { channelId: string; n: number }>('SELECT channel_id AS channelId, count(*) AS n FROM alerts GROUP BY channel_id'),
      channelBytes: distinctBytes('a.channel_id'),
      workspaceBytes: distinctBytes('c.workspace_id'),
      // A media key names its bytes, so rows sharing a key share one file: count each file once.
      mediaBytes: sqlite
        .prepare<[], number>('SELECT coalesce(sum(size), 0) FROM (SELECT max(size) AS size FROM alert_attachments GROUP BY media_key)')
        .pluck(),
      // Both backlog counts are range scans of notification_jobs_due_idx (state, next_attempt_at): cheap enough for every probe and scrape.
      pending: sqlite.prepare<[], number>(`SELECT count(*) FROM notification_jobs WHERE state = 'pending'`).pluck(),
      due: sqlite.prepare<[{ now: number; staleBefore: number }], { stale: number; oldest: number | null }>(
        `SELECT count(*) FILTER (WHERE next_attempt_at <= @staleBefore) AS stale, min(next_attempt_at) AS oldest
         FROM notification_jobs WHERE state = 'pending' AND next_attempt_at <= @now`,
      ),
      jobs: byState('notification_jobs'),
      deliveries: byState('notification_deliveries'),
      digests: byState('notification_digests'),
      pushes: byState('push_deliveries'),
      failures: sqlite.prepare<[number], FailureRow>(outboxFailuresSql('?')),
      perDay: sqlite.prepare<[string, number], { day: string; channelId: string; count: number }>(
        `SELECT strftime('%Y-%m-%d', al.created_at / 1000, 'unixepoch') AS day, al.channel_id AS channelId, count(*) AS count
         FROM alerts al JOIN channels c ON c.id = al.channel_id
         WHERE c.workspace_id = ? AND al.created_at >= ? GROUP BY day, al.channel_id ORDER BY day, channelId`,
      ),
      perMonth: sqlite.prepare<[string], { month: string; channelId: string; count: number }>(
        `SELECT strftime('%Y-%m', al.created_at / 1000, 'unixepoch') AS month, al.channel_id AS channelId, count(*) AS count
         FROM alerts al JOIN channels c ON c.id = al.channel_id
         WHERE c.workspace_id = ? GROUP BY month, al.channel_id ORDER BY month DESC, channelId`,
      ),
    };
  }

  async alertsPerChannel() {
    return new Map(this.s.perChannel.all().map((r) => [r.channelId, r.n]));
  }

  async mediaBytesBy(owner: 'channel' | 'workspace') {
    const rows = (owner === 'channel' ? this.s.channelBytes : this.s.workspaceBytes).all();
    return new Map(rows.map((r) => [r.owner, r.bytes]));
  }

  async mediaBytes() {
    return this.s.mediaBytes.get() ?? 0;
  }

  async outboxBacklog(now: number): Promise<OutboxBacklog> {
    const row = this.s.due.get({ now, staleBefore: now - OUTBOX_STALE_AFTER_MS })!;
    return { pending: this.s.pending.get() ?? 0, stale: row.stale, oldestDueMs: row.oldest === null ? 0 : now - row.oldest };
  }

  async outboxStatus(failureLimit: number) {
    const count = (s: Database.Statement<[], { state: string; n: number }>) => Object.fromEntries(s.all().map((r) => [r.state, r.n]));
    return {
      jobs: count(this.s.jobs),
      deliveries: count(this.s.deliveries),
      digests: count(this.s.digests),
      pushes: count(this.s.pushes),
      failures: this.s.failures.all(failureLimit).map((r) => ({ ...r, at: new Date(r.at).toISOString() })),
    };
  }

  async alertsPerDay(workspaceId: string, sinceMs: number) {
    return this.s.perDay.all(workspaceId, sinceMs);
  }

  async alertsPerMonth(workspaceId: string) {
    return this.s.perMonth.all(workspaceId);
  }
}
