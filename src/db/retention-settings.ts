import type Database from 'better-sqlite3';
import type { ChannelPolicyRow, RetentionSettingsRows, StoredLimits } from '../domain/retention.js';

/** Retention columns of channels and workspaces (see the schema comments for NULL and 0); the PostgreSQL twin is src/db/pg/retention-settings.ts. */
export class SqliteRetentionSettings implements RetentionSettingsRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      channel: sqlite.prepare<[string], StoredLimits>('SELECT retention_days AS days, retention_max_alerts AS maxAlerts FROM channels WHERE id = ?'),
      workspace: sqlite.prepare<[string], StoredLimits>(
        'SELECT retention_days AS days, retention_max_alerts AS maxAlerts FROM workspaces WHERE id = ?',
      ),
      setChannel: sqlite.prepare<[number | null, number | null, string]>('UPDATE channels SET retention_days = ?, retention_max_alerts = ? WHERE id = ?'),
      setWorkspace: sqlite.prepare<[number | null, number | null, string]>(
        'UPDATE workspaces SET retention_days = ?, retention_max_alerts = ? WHERE id = ?',
      ),
      // Only channels some limit applies to: a service where nobody set retention reads no rows.
      policies: sqlite.prepare<[], ChannelPolicyRow>(
        `SELECT c.id AS channelId, c.retention_days AS channelDays, c.retention_max_alerts AS channelMaxAlerts,
           w.retention_days AS workspaceDays, w.retention_max_alerts AS workspaceMaxAlerts
         FROM channels c JOIN workspaces w ON w.id = c.workspace_id
         WHERE c.retention_days IS NOT NULL OR c.retention_max_alerts IS NOT NULL
            OR w.retention_days IS NOT NULL OR w.retention_max_alerts IS NOT NULL
         ORDER BY c.created_at, c.id`,
      ),
    };
  }

  // Synchronous inside (better-sqlite3), Promises outside: the seam a PostgreSQL engine plugs into.
  channel(id: string): Promise<StoredLimits | undefined> {
    return Promise.resolve(this.s.channel.get(id));
  }

  workspace(id: string): Promise<StoredLimits | undefined> {
    return Promise.resolve(this.s.workspace.get(id));
  }

  setChannel(id: string, limits: StoredLimits): Promise<void> {
    this.s.setChannel.run(limits.days, limits.maxAlerts, id);
    return Promise.resolve();
  }

  setWorkspace(id: string, limits: StoredLimits): Promise<void> {
    this.s.setWorkspace.run(limits.days, limits.maxAlerts, id);
    return Promise.resolve();
  }

  policies(): Promise<ChannelPolicyRow[]> {
    return Promise.resolve(this.s.policies.all());
  }
}
