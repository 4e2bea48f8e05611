import { notFound } from './errors.js';

/** The rows behind the report (src/db/usage-rows.ts). */
export interface UsageRows {
  workspaceExists(workspaceId: string): boolean;
  /** Newest month first. */
  months(workspaceId: string): { month: string; events: number }[];
}

/**
 * The usage report: billable events per workspace and UTC month, one per plain
 * alert and one per workflow run (at its first POST). The alert store counts
 * them, in the alert's own unit.
 */
export class Usage {
  constructor(private readonly rows: UsageRows) {}

  /** Throws not-found for an unknown workspace (an empty report would look like a workspace with no traffic). */
  report(workspaceId: string) {
    if (!this.rows.workspaceExists(workspaceId)) throw notFound(`workspace ${workspaceId}`);
    return { workspaceId, months: this.rows.months(workspaceId) };
  }
}
