import type Database from 'better-sqlite3';
import type { UsageRows } from '../domain/usage.js';

/** The usage report's reads (the alert store writes the counters). */
export class SqliteUsageRows implements UsageRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      workspace: sqlite.prepare<[string], number>('SELECT 1 FROM workspaces WHERE id = ?').pluck(),
      months: sqlite.prepare<[string], { month: string; events: number }>(
        'SELECT month, events FROM usage_counters WHERE workspace_id = ? ORDER BY month DESC',
      ),
    };
  }

  workspaceExists(workspaceId: string): boolean {
    return this.s.workspace.get(workspaceId) !== undefined;
  }

  months(workspaceId: string) {
    return this.s.months.all(workspaceId);
  }
}
