import type pg from 'pg';
import type { ChannelPolicyRow, RetentionSettingsRows, StoredLimits } from '../../domain/retention.js';

const LIMITS = 'retention_days AS days, retention_max_alerts AS "maxAlerts"';

/** Retention columns of channels and workspaces on PostgreSQL: the statements of src/db/retention-settings.ts. */
export class PgRetentionSettings implements RetentionSettingsRows {
  constructor(private readonly pool: pg.Pool) {}

  async channel(id: string): Promise<StoredLimits | undefined> {
    return (await this.pool.query<StoredLimits>(`SELECT ${LIMITS} FROM channels WHERE id = $1`, [id])).rows[0];
  }

  async workspace(id: string): Promise<StoredLimits | undefined> {
    return (await this.pool.query<StoredLimits>(`SELECT ${LIMITS} FROM workspaces WHERE id = $1`, [id])).rows[0];
  }

  async setChannel(id: string, limits: StoredLimits): Promise<void> {
    await this.pool.query('UPDATE channels SET retention_days = $1, retention_max_alerts = $2 WHERE id = $3', [limits.days, limits.maxAlerts, id]);
  }

  async setWorkspace(id: string, limits: StoredLimits): Promise<void> {
    await this.pool.query('UPDATE workspaces SET retention_days = $1, retention_max_alerts = $2 WHERE id = $3', [limits.days, limits.maxAlerts, id]);
  }

  /** Only channels some limit applies to: a service where nobody set retention reads no rows. */
  async policies(): Promise<ChannelPolicyRow[]> {
    const { rows } = await this.pool.query<ChannelPolicyRow>(
      `SELECT c.id AS "channelId", c.retention_days AS "channelDays", c.retention_max_alerts AS "channelMaxAlerts",
         w.retention_days AS "workspaceDays", w.retention_max_alerts AS "workspaceMaxAlerts"
       FROM channels c JOIN workspaces w ON w.id = c.workspace_id
       WHERE c.retention_days IS NOT NULL OR c.retention_max_alerts IS NOT NULL
          OR w.retention_days IS NOT NULL OR w.retention_max_alerts IS NOT NULL
       ORDER BY c.created_at, c.id`,
    );
    return rows;
  }
}
