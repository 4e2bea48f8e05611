import type pg from 'pg';
import type { UsageMonth, UsageRows } from '../../domain/usage.js';

/** The usage report's reads on PostgreSQL: the statements of src/db/usage-rows.ts. */
export class PgUsageRows implements UsageRows {
  constructor(private readonly pool: pg.Pool) {}

  async workspaceExists(workspaceId: string): Promise<boolean> {
    return (await this.pool.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId])).rowCount === 1;
  }

  async months(workspaceId: string): Promise<UsageMonth[]> {
    const { rows } = await this.pool.query<UsageMonth>('SELECT month, events FROM usage_counters WHERE workspace_id = $1 ORDER BY month DESC', [workspaceId]);
    return rows;
  }
}
