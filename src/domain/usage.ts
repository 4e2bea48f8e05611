import { notFound } from './errors.js';

export interface UsageMonth {
  month: string;
  events: number;
}

/** The rows behind the report (src/db/usage-rows.ts on SQLite, src/db/pg/usage-rows.ts on PostgreSQL). */
export interface UsageRows {
  workspaceExists(workspaceId: string): Promise<boolean>;
  /** Newest month first. */
  months(workspaceId: string): Promise<UsageMonth[]>;
}

/**
 * The usage report: billable events per workspace and UTC month, one per plain
 * alert and one per workflow run (at its first POST). The alert store counts
 * them, in the alert's own unit.
 */
export class Usage {
  constructor(private readonly rows: UsageRows) {}

  /** Throws not-found for an unknown workspace (an empty report would look like a workspace with no traffic). */
  async report(workspaceId: string) {
    if (!(await this.rows.workspaceExists(workspaceId))) throw notFound(`workspace ${workspaceId}`);
    return { workspaceId, months: await this.rows.months(workspaceId) };
  }
}
