import type { ChannelPolicyRow, RetentionSettingsRows, StoredLimits } from '../../domain/retention.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

const LIMITS = 'retention_days AS days, retention_max_alerts AS "maxAlerts"';
type SetLimits = StoredLimits & { id: string };

const CHANNEL = statement<{ id: string }, StoredLimits>(`SELECT ${LIMITS} FROM channels WHERE id = :id`);
const WORKSPACE = statement<{ id: string }, StoredLimits>(`SELECT ${LIMITS} FROM workspaces WHERE id = :id`);
const SET_CHANNEL = statement<SetLimits>('UPDATE channels SET retention_days = :days, retention_max_alerts = :maxAlerts WHERE id = :id');
const SET_WORKSPACE = statement<SetLimits>('UPDATE workspaces SET retention_days = :days, retention_max_alerts = :maxAlerts WHERE id = :id');
// Only channels some limit applies to: a service where nobody set retention reads no rows.
const POLICIES = statement<Record<string, never>, ChannelPolicyRow>(
  `SELECT c.id AS "channelId", c.retention_days AS "channelDays", c.retention_max_alerts AS "channelMaxAlerts",
     w.retention_days AS "workspaceDays", w.retention_max_alerts AS "workspaceMaxAlerts"
   FROM channels c JOIN workspaces w ON w.id = c.workspace_id
   WHERE c.retention_days IS NOT NULL OR c.retention_max_alerts IS NOT NULL
      OR w.retention_days IS NOT NULL OR w.retention_max_alerts IS NOT NULL
   ORDER BY c.created_at, c.id`,
);

/** Retention columns of channels and workspaces (see the schema comments for NULL and 0), on either engine. */
export class SqlRetentionSettings implements RetentionSettingsRows {
  constructor(private readonly database: SqlExecutor) {}

  channel(id: string): Promise<StoredLimits | undefined> {
    return this.database.get(CHANNEL, { id });
  }

  workspace(id: string): Promise<StoredLimits | undefined> {
    return this.database.get(WORKSPACE, { id });
  }

  async setChannel(id: string, limits: StoredLimits): Promise<void> {
    await this.database.run(SET_CHANNEL, { id, days: limits.days, maxAlerts: limits.maxAlerts });
  }

  async setWorkspace(id: string, limits: StoredLimits): Promise<void> {
    await this.database.run(SET_WORKSPACE, { id, days: limits.days, maxAlerts: limits.maxAlerts });
  }

  policies(): Promise<ChannelPolicyRow[]> {
    return this.database.all(POLICIES, {});
  }
}
