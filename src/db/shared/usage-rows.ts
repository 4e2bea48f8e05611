import type { UsageMonth, UsageRows } from '../../domain/usage.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

const WORKSPACE = statement<{ workspaceId: string }, { found: number }>('SELECT 1 AS found FROM workspaces WHERE id = :workspaceId');
const MONTHS = statement<{ workspaceId: string }, UsageMonth>(
  'SELECT month, events FROM usage_counters WHERE workspace_id = :workspaceId ORDER BY month DESC',
);

/** The usage report's reads on either engine (the alert store writes the counters). */
export class SqlUsageRows implements UsageRows {
  constructor(private readonly database: SqlExecutor) {}

  async workspaceExists(workspaceId: string): Promise<boolean> {
    return (await this.database.get(WORKSPACE, { workspaceId })) !== undefined;
  }

  months(workspaceId: string): Promise<UsageMonth[]> {
    return this.database.all(MONTHS, { workspaceId });
  }
}
