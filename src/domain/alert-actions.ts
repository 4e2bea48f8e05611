import type { Clock } from '../lib/clock.js';
import { personChange, type HistoryRow, type LifecycleRequest, type LifecycleVia } from './alert-lifecycle.js';
import type { AlertLifecycleWrites, AlertReads } from './alert-store.js';
import type { ChangeBus } from './changes.js';
import { notFound } from './errors.js';
import type { Principal } from './tokens.js';

/** What a status change tells its subscribers after COMMIT (src/domain/alert-actions.ts `onStatusChanged`). */
export interface AlertStatusChanged {
  alertId: string;
  channelId: string;
  /** The history rows the change wrote (acknowledged, resolved, reopened, snoozed, unsnoozed). */
  history: Omit<HistoryRow, 'id' | 'alertId' | 'channelId'>[];
  status: 'open' | 'acknowledged' | 'resolved';
  snoozedUntil: number | null;
}

export interface AlertActionsDeps {
  reads: Pick<AlertReads, 'visibleAlert' | 'alert'>;
  lifecycle: AlertLifecycleWrites;
  /** A person's current name, for the history and `acknowledgedBy`/`resolvedBy`. */
  userName(userId: string): Promise<string | undefined>;
  clock: Clock;
  bus: ChangeBus;
}

/**
 * "Acknowledge, resolve, reopen, snooze" by a person, from wherever they are (API, dashboard, CLI,
 * e-mail, push): whoever can read the alert may change it (a member can acknowledge). The rule is
 * `personChange`; the write is one unit with its history and change event.
 */
export class AlertActions {
  private readonly listeners: ((e: AlertStatusChanged) => void)[] = [];

  constructor(private readonly deps: AlertActionsDeps) {}

  /**
   * The in-process hook other parts subscribe to (outbound routes, escalation): called after COMMIT
   * for every change a person makes. The durable record is the history table
   * (`store.lifecycle.historyAfter`), which a consumer that must not miss one reads by cursor.
   */
  onStatusChanged(listener: (e: AlertStatusChanged) => void): void {
    this.listeners.push(listener);
  }

  /** Applies the request as `p`'s user; not-found when they cannot see the alert. Whether anything changed. */
  async change(p: Principal, alertId: string, request: LifecycleRequest, via: LifecycleVia): Promise<boolean> {
    if (request.status === undefined && request.snoozedUntil === undefined) return false;
    const row = await this.deps.reads.visibleAlert(p, alertId);
    if (!row) throw notFound('alert');
    const actor = { id: p.userId, name: (await this.deps.userName(p.userId)) ?? 'someone' };
    const now = this.deps.clock.now();
    const result = await this.deps.lifecycle.change(alertId, (current) => personChange(current, request, actor, via, now), now);
    // Deleted between the look-up and the write: as if it never existed.
    if (!result) throw notFound('alert');
    const change = result.change;
    if (!change) return false;
    this.deps.bus.emit('alert-events');
    const event: AlertStatusChanged = {
      alertId,
      channelId: result.channelId,
      history: change.history.map((h) => ({ ...h, createdAt: now })),
      status: change.next.status,
      snoozedUntil: change.next.snoozedUntil,
    };
    for (const listener of this.listeners) listener(event);
    return true;
  }

  /**
   * The principal of a person acting on one alert outside a session (the admin CLI's `--as`, an
   * e-mail link's recipient): a member of the alert's workspace, or not-found as if the alert did
   * not exist. Visibility is checked again by `change`.
   */
  async principalFor(userId: string, alertId: string, membership: (channelId: string, userId: string) => Promise<string | undefined>, tokenId: string): Promise<Principal> {
    const row = await this.deps.reads.alert(alertId);
    const workspaceId = row && (await membership(row.channelId, userId));
    if (!workspaceId) throw notFound('alert');
    return { tokenId, userId, workspaceId };
  }

  /** The alert's history, oldest first, for someone who can see it. */
  async history(p: Principal, alertId: string): Promise<HistoryRow[]> {
    if (!(await this.deps.reads.visibleAlert(p, alertId))) throw notFound('alert');
    return this.deps.lifecycle.history(alertId);
  }
}
