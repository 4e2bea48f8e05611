import type { AlertReads } from '../alert-store.js';
import { notFound } from '../errors.js';
import type { Principal } from '../tokens.js';
import type { DeliveryLogRow, RouteOutboxStore } from './route-outbox.js';

/** One row of GET /api/alerts/{id}/deliveries: a route's, an e-mail's or a push's delivery of the alert. */
export interface AlertDeliveryView {
  kind: DeliveryLogRow['kind'];
  routeId: string | null;
  target: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
}

export interface AlertDeliveriesDeps {
  reads: Pick<AlertReads, 'visibleAlert'>;
  outbox: Pick<RouteOutboxStore, 'deliveriesOfAlert'>;
  /** The caller's role in the workspace, or undefined when they are not a member. */
  roleOf(workspaceId: string, userId: string): Promise<string | undefined>;
}

/**
 * "Where did this alert go?": every delivery of one alert, for whoever can read it. Route rows are
 * the channel's (every reader sees them, targets masked); e-mail and push rows are a person's own,
 * so a member sees only theirs and an owner or admin sees everyone's (as GitHub shows a webhook's
 * deliveries to repository admins and your own notifications to you).
 */
export class AlertDeliveries {
  constructor(private readonly deps: AlertDeliveriesDeps) {}

  async list(p: Principal, alertId: string): Promise<AlertDeliveryView[]> {
    if (!(await this.deps.reads.visibleAlert(p, alertId))) throw notFound('alert');
    const role = await this.deps.roleOf(p.workspaceId, p.userId);
    const seesEveryone = role === 'owner' || role === 'admin';
    const rows = await this.deps.outbox.deliveriesOfAlert(alertId);
    return rows
      .filter((r) => r.kind === 'route' || seesEveryone || r.userId === p.userId)
      .map((r) => ({
        kind: r.kind,
        routeId: r.routeId,
        target: r.kind === 'email' ? maskEmail(r.target) : r.target,
        status: r.status,
        attempts: r.attempts,
        lastStatus: r.lastStatus,
        lastError: r.lastError,
        lastAttemptAt: r.lastAttemptAt === null ? null : new Date(r.lastAttemptAt).toISOString(),
      }));
  }
}

/** `ada@example.com` → `a***@example.com`: enough to recognise, not enough to harvest. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}
