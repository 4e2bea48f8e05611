import type Database from 'better-sqlite3';
import { notFound } from './errors.js';

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** Billable events per workspace and UTC month: one per plain alert, one per workflow run (at its first POST). */
export class Usage {
  private readonly bump: Database.Statement;
  private readonly workspaceExists: Database.Statement;

  constructor(private readonly sqlite: Database.Database) {
    this.bump = sqlite.prepare(
      `INSERT INTO usage_counters (workspace_id, month, events) VALUES (?, ?, 1)
       ON CONFLICT (workspace_id, month) DO UPDATE SET events = events + 1`,
    );
    this.workspaceExists = sqlite.prepare('SELECT 1 FROM workspaces WHERE id = ?');
  }

  count(workspaceId: string, now: number): void {
    this.bump.run(workspaceId, monthOf(now));
  }

  /** Throws not-found for an unknown workspace (an empty report would look like a workspace with no traffic). */
  report(workspaceId: string) {
    if (this.workspaceExists.get(workspaceId) === undefined) throw notFound(`workspace ${workspaceId}`);
    const months = this.sqlite
      .prepare('SELECT month, events FROM usage_counters WHERE workspace_id = ? ORDER BY month DESC')
      .all(workspaceId) as { month: string; events: number }[];
    return { workspaceId, months };
  }
}
