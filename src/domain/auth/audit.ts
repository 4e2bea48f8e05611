import type Database from 'better-sqlite3';
import type { Clock } from '../../lib/clock.js';

export interface AuditEntry {
  id: number;
  at: string;
  actor: { id: string | null; email: string | null };
  action: string;
  target: string | null;
  from: string | null;
}

/** Management actions: who, what, when and from where. Never a secret in `target`. */
export class AuditLog {
  private readonly s;

  constructor(
    sqlite: Database.Database,
    private readonly clock: Clock,
  ) {
    this.s = {
      insert: sqlite.prepare('INSERT INTO audit_log (workspace_id, actor_user_id, action, target, client_address, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
      list: sqlite.prepare(
        `SELECT a.id, a.created_at AS createdAt, a.actor_user_id AS actorId, u.email AS actorEmail, a.action, a.target, a.client_address AS fromAddr
         FROM audit_log a LEFT JOIN users u ON u.id = a.actor_user_id WHERE a.workspace_id = ? ORDER BY a.id DESC LIMIT ?`,
      ),
    };
  }

  record(workspaceId: string, actorUserId: string | null, action: string, target: string | null, clientAddress: string | null): void {
    this.s.insert.run(workspaceId, actorUserId, action, target, clientAddress, this.clock.now());
  }

  list(workspaceId: string, limit = 200): AuditEntry[] {
    const rows = this.s.list.all(workspaceId, limit) as {
      id: number;
      createdAt: number;
      actorId: string | null;
      actorEmail: string | null;
      action: string;
      target: string | null;
      fromAddr: string | null;
    }[];
    return rows.map((r) => ({
      id: r.id,
      at: new Date(r.createdAt).toISOString(),
      actor: { id: r.actorId, email: r.actorEmail },
      action: r.action,
      target: r.target,
      from: r.fromAddr,
    }));
  }
}
