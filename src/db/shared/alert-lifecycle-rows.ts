import type { HistoryRow, LifecycleChange, LifecycleState } from '../../domain/alert-lifecycle.js';
import type { AlertLifecycleWrites } from '../../domain/alert-store.js';
import type { AlertEventRecorder } from '../../domain/routes/alert-events.js';
import type { RouteEvent } from '../../domain/routes/route-kinds.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { byDialect, statement } from './statement.js';
import type { WriteUnits } from './write-units.js';

// Status, snooze and history, written once for both engines. `applyLifecycle` is a step the other
// alert writes (a sender's key, a group, a run) run inside their own unit, so the content and the
// lifecycle it moves commit together.

/** PostgreSQL locks the row, so two people (or a person and a source) changing one alert take turns. */
const LIFECYCLE_OF = byDialect<{ alertId: string }, LifecycleState & { channelId: string }>(
  (dialect) => `SELECT channel_id AS "channelId", status, acknowledged_at AS "acknowledgedAt", acknowledged_by_json AS "acknowledgedByJson",
     resolved_at AS "resolvedAt", resolved_by_json AS "resolvedByJson", snoozed_until AS "snoozedUntil", occurrences
   FROM alerts WHERE id = :alertId${dialect.engine === 'postgres' ? ' FOR UPDATE' : ''}`,
);

const SET_LIFECYCLE = statement<LifecycleState & { alertId: string }>(
  `UPDATE alerts SET status = :status, acknowledged_at = :acknowledgedAt, acknowledged_by_json = :acknowledgedByJson,
     resolved_at = :resolvedAt, resolved_by_json = :resolvedByJson, snoozed_until = :snoozedUntil, occurrences = :occurrences
   WHERE id = :alertId`,
);

const INSERT_HISTORY = statement<Omit<HistoryRow, 'id'>>(
  `INSERT INTO alert_history (alert_id, channel_id, action, actor_id, actor_name, via, snoozed_until, created_at)
   VALUES (:alertId, :channelId, :action, :actorId, :actorName, :via, :snoozedUntil, :createdAt)`,
);

const HISTORY_COLUMNS = `id, alert_id AS "alertId", channel_id AS "channelId", action, actor_id AS "actorId", actor_name AS "actorName", via,
  snoozed_until AS "snoozedUntil", created_at AS "createdAt"`;
const HISTORY = statement<{ alertId: string }, HistoryRow>(`SELECT ${HISTORY_COLUMNS} FROM alert_history WHERE alert_id = :alertId ORDER BY id`);
const HISTORY_AFTER = statement<{ afterId: number; limit: number }, HistoryRow>(
  `SELECT ${HISTORY_COLUMNS} FROM alert_history WHERE id > :afterId ORDER BY id LIMIT :limit`,
);

/** The route event of a history action; a snooze is no event for routes. */
const ROUTE_EVENT_OF: Partial<Record<HistoryRow['action'], RouteEvent>> = {
  acknowledged: 'alert.acknowledged',
  resolved: 'alert.resolved',
  reopened: 'alert.opened',
};

/**
 * Inside a unit: reads the alert's lifecycle, decides, writes the change, its history and, for a
 * status change, its route event (so routes filtered on it deliver it, committed with the change).
 * `statusEvent` tells whether one was recorded. Undefined when the alert is gone.
 */
export function* applyLifecycle(
  tx: TransactionSteps,
  routes: AlertEventRecorder,
  alertId: string,
  decide: (current: LifecycleState) => LifecycleChange | null,
  now: number,
): Step<{ channelId: string; change: LifecycleChange | null; statusEvent: boolean } | undefined> {
  const row = yield* tx.get(LIFECYCLE_OF, { alertId });
  if (!row) return undefined;
  const { channelId, ...current } = row;
  const change = decide({ ...current, acknowledgedAt: numberOrNull(current.acknowledgedAt), resolvedAt: numberOrNull(current.resolvedAt), snoozedUntil: numberOrNull(current.snoozedUntil), occurrences: Number(current.occurrences) });
  if (!change) return { channelId, change: null, statusEvent: false };
  yield* tx.run(SET_LIFECYCLE, { ...change.next, alertId });
  let statusEvent = false;
  for (const h of change.history) {
    yield* tx.run(INSERT_HISTORY, { ...h, alertId, channelId, createdAt: now });
    const event = ROUTE_EVENT_OF[h.action];
    if (event) {
      routes.alertEvent(event, channelId, alertId, now);
      statusEvent = true;
    }
  }
  return { channelId, change, statusEvent };
}

/** PostgreSQL answers bigint columns as text; SQLite as numbers. */
function numberOrNull(v: number | string | null): number | null {
  return v === null ? null : Number(v);
}

const numericHistory = (r: HistoryRow): HistoryRow => ({
  ...r,
  id: Number(r.id),
  snoozedUntil: numberOrNull(r.snoozedUntil),
  createdAt: Number(r.createdAt),
});

/** The lifecycle port on either engine: a person's change is one shared write unit. */
export class SqlAlertLifecycle implements AlertLifecycleWrites {
  constructor(
    private readonly database: SqlExecutor,
    private readonly units: WriteUnits,
  ) {}

  change(alertId: string, decide: (current: LifecycleState) => LifecycleChange | null, now: number) {
    return this.units.run(function* (tx, effects) {
      const result = yield* applyLifecycle(tx, effects, alertId, decide, now);
      if (result?.change) effects.event(result.channelId, alertId, 'alert.updated', now);
      return result;
    });
  }

  async history(alertId: string): Promise<HistoryRow[]> {
    return (await this.database.all(HISTORY, { alertId })).map(numericHistory);
  }

  async historyAfter(afterId: number, limit: number): Promise<HistoryRow[]> {
    return (await this.database.all(HISTORY_AFTER, { afterId, limit })).map(numericHistory);
  }
}
