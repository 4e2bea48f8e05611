import type { Clock } from '../../lib/clock.js';

export interface AuditEntry {
  id: number;
  at: string;
  actor: { id: string | null; email: string | null };
  action: string;
  target: string | null;
  from: string | null;
}

/** An audit_log row as the list reads it. */
export interface AuditRow {
  id: number;
  createdAt: number;
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  target: string | null;
  fromAddr: string | null;
}

/** The audit_log rows (src/db/shared/auth-rows.ts). */
export interface AuditRows {
  insert(workspaceId: string, actorUserId: string | null, action: string, target: string | null, clientAddress: string | null, now: number): Promise<void>;
  list(workspaceId: string, limit: number): Promise<AuditRow[]>;
}

/** Management actions: who, what, when and from where. Never a secret in `target`. */
export class AuditLog {
  constructor(
    private readonly rows: AuditRows,
    private readonly clock: Clock,
  ) {}

  record(workspaceId: string, actorUserId: string | null, action: string, target: string | null, clientAddress: string | null): Promise<void> {
    return this.rows.insert(workspaceId, actorUserId, action, target, clientAddress, this.clock.now());
  }

  async list(workspaceId: string, limit = 200): Promise<AuditEntry[]> {
    return (await this.rows.list(workspaceId, limit)).map((r) => ({
      id: r.id,
      at: new Date(r.createdAt).toISOString(),
      actor: { id: r.actorId, email: r.actorEmail },
      action: r.action,
      target: r.target,
      from: r.fromAddr,
    }));
  }
}
