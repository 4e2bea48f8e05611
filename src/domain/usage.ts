import type Database from 'better-sqlite3';
import { notFound } from './errors.js';

/**
 * The usage report: billable events per workspace and UTC month, one per plain
 * alert and one per workflow run (at its first POST). The alert store counts
 * them, in the alert's own unit.
 */
export class Usage {
  private readonly workspaceExists: Database.Statement;

  constructor(private readonly sqlite: Database.Database) {
    this.workspaceExists = sqlite.prepare('SELECT 1 FROM workspaces WHERE id = ?');
  }

  /** Throws not-found for an unknown workspace (an empty report would look like a workspace with no traffic). */
  report(workspaceId: string) {
    if (this.workspaceExists.get(workspaceId) === undefined) throw notFound(`workspace ${workspaceId}`);
    const months = this.sqlite
      .prepare<[string], { month: string; events: number }>('SELECT month, events FROM usage_counters WHERE workspace_id = ? ORDER BY month DESC')
      .all(workspaceId);
    return { workspaceId, months };
  }
}
