import type Database from 'better-sqlite3';
import type { UsageMonth, UsageRows } from '../domain/usage.js';

/** The usage report's reads (the alert store writes the counters); the PostgreSQL twin is src/db/pg/usage-rows.ts. */
export class SqliteUsageRows implements UsageRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      workspace: sqlite.prepare<[string], number>('SELECT 1 FROM workspaces WHERE id = ?').pluck(),
      months: sqlite.prepare<[string], UsageMonth>(
        'SELECT month, events FROM usage_counters WHERE workspace_id = ? ORDER BY month DESC',
      ),
    };
  }

  // Synchronous inside (better-sqlite3), Promises outside: the seam a PostgreSQL engine plugs into.
  workspaceExists(workspaceId: string): Promise<boolean> {
    return Promise.resolve(this.s.workspace.get(workspaceId) !== undefined);
  }

  months(workspaceId: string): Promise<UsageMonth[]> {
    return Promise.resolve(this.s.months.all(workspaceId));
  }
}
