import type pg from 'pg';
import { OUTBOX_STALE_AFTER_MS, type AlertReports, type OutboxBacklog } from '../../../domain/alert-reports.js';
import { outboxFailuresSql, type FailureRow } from '../../alert-store/reports.js';

type StateTable = 'notification_jobs' | 'notification_deliveries' | 'notification_digests' | 'push_deliveries';

/**
 * The counting reads of src/db/alert-store/reports.ts on PostgreSQL: the same questions, the same
 * answers (test/cluster/alert-reports-contract.test.ts). Sums are cast back to bigint: `sum` of a
 * bigint column is `numeric`, which `pg` hands over as a string.
 */
export class PgAlertReports implements AlertReports {
  constructor(private readonly pool: pg.Pool) {}

  async alertsPerChannel() {
    const { rows } = await this.pool.query<{ channelId: string; n: number }>(
      'SELECT channel_id AS "channelId", count(*) AS n FROM alerts GROUP BY channel_id',
    );
    return new Map(rows.map((r) => [r.channelId, r.n]));
  }

  async mediaBytesBy(owner: 'channel' | 'workspace') {
    const column = owner === 'channel' ? 'a.channel_id' : 'c.workspace_id';
    const { rows } = await this.pool.query<{ owner: string; bytes: number }>(
      `SELECT owner, sum(size)::bigint AS bytes FROM (
         SELECT DISTINCT ${column} AS owner, att.media_key, att.size
         FROM alert_attachments att JOIN alerts a ON a.id = att.alert_id JOIN channels c ON c.id = a.channel_id) AS files
       GROUP BY owner`,
    );
    return new Map(rows.map((r) => [r.owner, r.bytes]));
  }

  async mediaBytes() {
    // A media key names its bytes, so rows sharing a key share one file: count each file once.
    const { rows } = await this.pool.query<{ bytes: number }>(
      'SELECT coalesce(sum(size), 0)::bigint AS bytes FROM (SELECT max(size) AS size FROM alert_attachments GROUP BY media_key) AS files',
    );
    return rows[0]?.bytes ?? 0;
  }

  async outboxBacklog(now: number): Promise<OutboxBacklog> {
    const { rows } = await this.pool.query<{ pending: number; stale: number; oldest: number | null }>(
      `SELECT count(*) AS pending,
              count(*) FILTER (WHERE next_attempt_at <= $1 AND next_attempt_at <= $2) AS stale,
              min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1) AS oldest
       FROM notification_jobs WHERE state = 'pending'`,
      [now, now - OUTBOX_STALE_AFTER_MS],
    );
    const row = rows[0];
    if (!row) return { pending: 0, stale: 0, oldestDueMs: 0 };
    return { pending: row.pending, stale: row.stale, oldestDueMs: row.oldest === null ? 0 : now - row.oldest };
  }

  async outboxStatus(failureLimit: number) {
    const count = async (table: StateTable) => {
      const { rows } = await this.pool.query<{ state: string; n: number }>(`SELECT state, count(*) AS n FROM ${table} GROUP BY state`);
      return Object.fromEntries(rows.map((r) => [r.state, r.n]));
    };
    const failures = await this.pool.query<FailureRow>(outboxFailuresSql('$1'), [failureLimit]);
    return {
      jobs: await count('notification_jobs'),
      deliveries: await count('notification_deliveries'),
      digests: await count('notification_digests'),
      pushes: await count('push_deliveries'),
      failures: failures.rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() })),
    };
  }

  async alertsPerDay(workspaceId: string, sinceMs: number) {
    const { rows } = await this.pool.query<{ day: string; channelId: string; count: number }>(
      `SELECT to_char(to_timestamp(al.created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, al.channel_id AS "channelId", count(*) AS count
       FROM alerts al JOIN channels c ON c.id = al.channel_id
       WHERE c.workspace_id = $1 AND al.created_at >= $2 GROUP BY 1, 2 ORDER BY 1, 2`,
      [workspaceId, sinceMs],
    );
    return rows;
  }

  async alertsPerMonth(workspaceId: string) {
    const { rows } = await this.pool.query<{ month: string; channelId: string; count: number }>(
      `SELECT to_char(to_timestamp(al.created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM') AS month, al.channel_id AS "channelId", count(*)::int AS count
       FROM alerts al JOIN channels c ON c.id = al.channel_id
       WHERE c.workspace_id = $1 GROUP BY 1, 2 ORDER BY 1 DESC, 2`,
      [workspaceId],
    );
    return rows;
  }
}
