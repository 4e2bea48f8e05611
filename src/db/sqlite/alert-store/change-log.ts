import type { AlertEventType, NotificationKind } from '../../../domain/alert-store.js';
import type { RouteEvent } from '../../../domain/routes/route-kinds.js';
import { SqlChangeLog } from '../../shared/change-log.js';
import { statement } from '../../shared/statement.js';
import type { SqliteExecutor } from '../executor.js';

const INSERT_EVENT = statement<{ channelId: string; alertId: string; type: AlertEventType; now: number }>(
  'INSERT INTO alert_events (channel_id, alert_id, type, created_at) VALUES (:channelId, :alertId, :type, :now)',
);
const INSERT_JOB = statement<{ channelId: string; alertId: string; kind: NotificationKind; now: number }>(
  `INSERT INTO notification_jobs (alert_id, channel_id, kind, state, attempts, next_attempt_at, created_at)
   VALUES (:alertId, :channelId, :kind, 'pending', 0, :now, :now)`,
);
/** One delivery per active route of the channel that forwards this event (src/domain/routes/alert-events.ts). */
const INSERT_ROUTE_DELIVERIES = statement<{ channelId: string; alertId: string; event: RouteEvent; pattern: string; now: number }>(
  `INSERT INTO route_deliveries (route_id, alert_id, channel_id, event, state, attempts, next_attempt_at, created_at)
   SELECT r.id, :alertId, :channelId, :event, 'pending', 0, :now, :now FROM routes r
   WHERE r.channel_id = :channelId AND r.state = 'active' AND r.events LIKE :pattern ORDER BY r.id`,
);
/**
 * Whether the channel has an active route at all. Most channels have none, and the INSERT … SELECT
 * above costs about 10 µs even when it selects nothing (SQLite opens a statement journal for it),
 * against about 0.3 µs for this probe: it was the webhook's second most expensive statement.
 */
const HAS_ACTIVE_ROUTE = statement<{ channelId: string }, { one: number }>(
  `SELECT 1 AS one FROM routes WHERE channel_id = :channelId AND state = 'active' LIMIT 1`,
);
// The autoincrement counter, not max(id): ids of pruned (or deleted) rows are never handed out again.
const HEAD = statement<Record<string, never>, { seq: number }>(`SELECT seq FROM sqlite_sequence WHERE name = 'alert_events'`);

/**
 * The change log on SQLite: the shared reads (src/db/shared/change-log.ts), and the change log
 * (`alert_events`, behind the live stream) and outbox (`notification_jobs`, behind e-mail) rows a
 * writer records synchronously inside the group commit's unit that changes the alert, so both
 * commit or neither does. Single writer: ids become visible in the order they are handed out.
 */
export class SqliteChangeLog extends SqlChangeLog {
  constructor(private readonly executor: SqliteExecutor) {
    super(executor);
  }

  /** Inside a unit. */
  event(channelId: string, alertId: string, type: AlertEventType, now: number): void {
    this.executor.runNow(INSERT_EVENT, { channelId, alertId, type, now });
  }

  /** Inside a unit. */
  notification(channelId: string, alertId: string, kind: NotificationKind, now: number): void {
    this.executor.runNow(INSERT_JOB, { channelId, alertId, kind, now });
  }

  /** Inside a unit. */
  alertEvent(event: RouteEvent, channelId: string, alertId: string, now: number): void {
    if (this.executor.getNow(HAS_ACTIVE_ROUTE, { channelId }) === undefined) return;
    this.executor.runNow(INSERT_ROUTE_DELIVERIES, { channelId, alertId, event, pattern: `%,${event},%`, now });
  }

  async headEventId() {
    return this.executor.valueNow(HEAD, {}) ?? 0;
  }
}
