import type { AttachmentRow } from '../../domain/alert-rows.js';
import type { ClaimedRouteDelivery, DeliveryLogRow, RouteClaim, RouteOutboxStore } from '../../domain/routes/route-outbox.js';
import type { RouteEvent } from '../../domain/routes/route-kinds.js';
import { ATTACHMENT_SELECT } from './alert-columns.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { InOrder } from './in-order.js';
import { ALERT_BY_ID, OUTBOX_CHANNEL } from './outbox-steps.js';
import { routeOf } from './route-rows.js';
import { perEngine, statement } from './statement.js';

const ROUTE_COLUMNS = `id, channel_id AS "channelId", kind, target_sealed AS "targetSealed", key_id AS "keyId", target_hint AS "targetHint",
  min_level AS "minLevel", events, source, fields_json AS "fieldsJson", state, paused_reason AS "pausedReason",
  failing_since AS "failingSince", rate_per_minute AS "ratePerMinute", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The oldest unfinished delivery of its (route, alert) only: events reach a receiver in the order they happened. */
const FIRST_OF_ITS_ALERT = `NOT EXISTS (SELECT 1 FROM route_deliveries p WHERE p.route_id = d.route_id AND p.alert_id = d.alert_id
  AND p.id < d.id AND p.state IN ('pending', 'sending'))`;

const RECOVER = perEngine<{ now: number }>({
  // SQLite's one process: every `sending` row at start-up was cut off by a crash.
  sqlite: `UPDATE route_deliveries SET state = 'pending', next_attempt_at = :now, lease_until = NULL WHERE state = 'sending'`,
  pg: `UPDATE route_deliveries SET state = 'pending', next_attempt_at = :now, lease_until = NULL WHERE state = 'sending' AND lease_until < :now`,
});
const DUE = statement<{ now: number; limit: number; keyId: string }, { id: number }>(
  `SELECT d.id FROM route_deliveries d JOIN routes r ON r.id = d.route_id
   WHERE d.state = 'pending' AND d.next_attempt_at <= :now AND r.state = 'active' AND r.key_id = :keyId AND ${FIRST_OF_ITS_ALERT}
   ORDER BY d.next_attempt_at, d.id LIMIT :limit`,
);
const NEXT_DUE = statement<{ keyId: string }, { next: number | null }>(
  `SELECT min(d.next_attempt_at) AS next FROM route_deliveries d JOIN routes r ON r.id = d.route_id
   WHERE d.state = 'pending' AND r.state = 'active' AND r.key_id = :keyId`,
);
const CLAIMABLE_SQL = `SELECT d.id, d.route_id AS "routeId", d.alert_id AS "alertId", d.channel_id AS "channelId", d.event, d.attempts, d.created_at AS "createdAt"
  FROM route_deliveries d WHERE d.id = :id AND d.state = 'pending' AND ${FIRST_OF_ITS_ALERT}`;
/** PostgreSQL: a row another node's claim holds is skipped. */
const CLAIMABLE = perEngine<{ id: number }, { id: number; routeId: string; alertId: string; channelId: string; event: RouteEvent; attempts: number; createdAt: number }>({
  sqlite: CLAIMABLE_SQL,
  pg: `${CLAIMABLE_SQL} FOR UPDATE OF d SKIP LOCKED`,
});
/** PostgreSQL: the route's row is held to COMMIT, so two nodes' claims of one route (rate limit, order) take turns. */
const ROUTE = perEngine<{ routeId: string }, Parameters<typeof routeOf>[0]>({
  sqlite: `SELECT ${ROUTE_COLUMNS} FROM routes WHERE id = :routeId`,
  pg: `SELECT ${ROUTE_COLUMNS} FROM routes WHERE id = :routeId FOR UPDATE`,
});
const RECENT_ATTEMPTS = statement<{ routeId: string; since: number }, { count: number; oldest: number | null }>(
  `SELECT CAST(count(*) AS INTEGER) AS count, min(last_attempt_at) AS oldest FROM route_deliveries WHERE route_id = :routeId AND last_attempt_at > :since`,
);
const MESSAGE_REF = statement<{ routeId: string; alertId: string }, { ref: string }>(
  'SELECT message_ref AS ref FROM route_messages WHERE route_id = :routeId AND alert_id = :alertId',
);
const ATTACHMENTS = statement<{ alertId: string }, AttachmentRow>(`SELECT ${ATTACHMENT_SELECT} FROM alert_attachments WHERE alert_id = :alertId ORDER BY position`);
const THROTTLE = statement<{ id: number; at: number }>('UPDATE route_deliveries SET next_attempt_at = :at WHERE id = :id');
const CLAIM = statement<{ id: number; now: number; leaseUntil: number }>(
  `UPDATE route_deliveries SET state = 'sending', attempts = attempts + 1, lease_until = :leaseUntil, last_attempt_at = :now WHERE id = :id`,
);
const SENT = statement<{ id: number; status: number; now: number }>(
  `UPDATE route_deliveries SET state = 'sent', last_status = :status, last_error = NULL, lease_until = NULL, last_attempt_at = :now WHERE id = :id`,
);
const ROUTE_OK = statement<{ routeId: string }>('UPDATE routes SET failing_since = NULL WHERE id = :routeId AND failing_since IS NOT NULL');
const KEEP_MESSAGE = statement<{ routeId: string; alertId: string; ref: string; now: number }>(
  `INSERT INTO route_messages (route_id, alert_id, message_ref, created_at) VALUES (:routeId, :alertId, :ref, :now)
   ON CONFLICT (route_id, alert_id) DO UPDATE SET message_ref = excluded.message_ref`,
);
const RETRY = statement<{ id: number; at: number; status: number | null; error: string; now: number }>(
  `UPDATE route_deliveries SET state = 'pending', next_attempt_at = :at, last_status = :status, last_error = :error, lease_until = NULL, last_attempt_at = :now WHERE id = :id`,
);
const FAILED = statement<{ id: number; status: number | null; error: string; now: number }>(
  `UPDATE route_deliveries SET state = 'failed', last_status = :status, last_error = :error, lease_until = NULL, last_attempt_at = :now WHERE id = :id`,
);
const SKIPPED = statement<{ id: number; reason: string; now: number }>(
  `UPDATE route_deliveries SET state = 'skipped', last_error = :reason, lease_until = NULL, last_attempt_at = :now WHERE id = :id`,
);
const START_FAILING = statement<{ routeId: string; now: number }, { since: number }>(
  'UPDATE routes SET failing_since = COALESCE(failing_since, :now) WHERE id = :routeId RETURNING failing_since AS since',
);
const PAUSE = statement<{ routeId: string; reason: string; now: number }>(
  `UPDATE routes SET state = 'paused', paused_reason = :reason, updated_at = :now WHERE id = :routeId AND state = 'active'`,
);
const PRUNE = statement<{ before: number }>(`DELETE FROM route_deliveries WHERE state IN ('sent', 'skipped', 'failed') AND last_attempt_at < :before`);

const LOG = statement<{ alertId: string }, Omit<DeliveryLogRow, 'target'> & { target: string | null }>(
  `SELECT 'route' AS kind, d.route_id AS "routeId", r.kind AS "routeKind", r.target_hint AS target, NULL AS "userId", d.state AS status,
          d.attempts, d.last_status AS "lastStatus", d.last_error AS "lastError", d.last_attempt_at AS "lastAttemptAt"
     FROM route_deliveries d JOIN routes r ON r.id = d.route_id WHERE d.alert_id = :alertId
   UNION ALL
   SELECT 'email', NULL, NULL, u.email, n.user_id, n.state, n.attempts, NULL, n.last_error,
          CASE WHEN n.attempts > 0 THEN n.updated_at ELSE NULL END
     FROM notification_deliveries n JOIN users u ON u.id = n.user_id WHERE n.alert_id = :alertId
   UNION ALL
   SELECT 'push', NULL, NULL, s.device, p.user_id, p.state, p.attempts, NULL, p.last_error,
          CASE WHEN p.attempts > 0 THEN p.updated_at ELSE NULL END
     FROM push_deliveries p JOIN push_subscriptions s ON s.id = p.subscription_id WHERE p.alert_id = :alertId`,
);

/**
 * The routes' outbox on either engine. A claim reads its row `FOR UPDATE SKIP LOCKED` and its
 * route `FOR UPDATE` (PostgreSQL), so two nodes never both send a delivery and one route's rate
 * limit and order are decided one claim at a time; the row is leased while its request runs.
 */
export class SqlRouteOutbox implements RouteOutboxStore {
  private readonly claims = new InOrder();

  constructor(private readonly database: SqlExecutor) {}

  recoverInterrupted(now: number): Promise<number> {
    return this.database.run(RECOVER, { now });
  }

  async due(now: number, limit: number, keyId: string): Promise<number[]> {
    return (await this.database.all(DUE, { now, limit, keyId })).map((r) => Number(r.id));
  }

  claim(id: number, now: number, leaseMs: number): Promise<RouteClaim> {
    return this.claims.run(() => this.database.transaction((tx) => claimSteps(tx, id, now, leaseMs)));
  }

  async recordSent(id: number, routeId: string, alertId: string, status: number, messageRef: string | null, now: number): Promise<void> {
    await this.database.transaction(function* (tx) {
      yield* tx.run(SENT, { id, status, now });
      yield* tx.run(ROUTE_OK, { routeId });
      if (messageRef !== null) yield* tx.run(KEEP_MESSAGE, { routeId, alertId, ref: messageRef, now });
    });
  }

  recordFailure(id: number, routeId: string, at: number | null, status: number | null, error: string, now: number): Promise<number> {
    return this.database.transaction(function* (tx) {
      if (at === null) yield* tx.run(FAILED, { id, status, error, now });
      else yield* tx.run(RETRY, { id, at, status, error, now });
      const row = yield* tx.get(START_FAILING, { routeId, now });
      return Number(row?.since ?? now);
    });
  }

  async recordSkipped(id: number, reason: string, now: number): Promise<void> {
    await this.database.run(SKIPPED, { id, reason, now });
  }

  async pauseRoute(routeId: string, reason: string, now: number): Promise<boolean> {
    return (await this.database.run(PAUSE, { routeId, reason, now })) > 0;
  }

  async nextDue(keyId: string): Promise<number | null> {
    const next = await this.database.value(NEXT_DUE, { keyId });
    return next === null || next === undefined ? null : Number(next);
  }

  async prune(before: number): Promise<void> {
    await this.database.run(PRUNE, { before });
  }

  async deliveriesOfAlert(alertId: string): Promise<DeliveryLogRow[]> {
    return (await this.database.all(LOG, { alertId })).map((r) => ({
      ...r,
      target: r.target ?? '',
      attempts: Number(r.attempts),
      lastStatus: r.lastStatus === null ? null : Number(r.lastStatus),
      lastAttemptAt: r.lastAttemptAt === null ? null : Number(r.lastAttemptAt),
    }));
  }
}

function* claimSteps(tx: TransactionSteps, id: number, now: number, leaseMs: number): Step<RouteClaim> {
  const row = yield* tx.get(CLAIMABLE, { id });
  if (!row) return null;
  const stored = yield* tx.get(ROUTE, { routeId: row.routeId });
  if (!stored || stored.state !== 'active') return null;
  const route = routeOf(stored);
  // The rate limit counts attempts in the last minute; a full minute moves the row, it never drops it.
  const recent = yield* tx.get(RECENT_ATTEMPTS, { routeId: route.id, since: now - 60_000 });
  if (recent && Number(recent.count) >= route.ratePerMinute && recent.oldest !== null) {
    const until = Number(recent.oldest) + 60_000 + 1;
    yield* tx.run(THROTTLE, { id, at: until });
    return { throttledUntil: until };
  }
  yield* tx.run(CLAIM, { id, now, leaseUntil: now + leaseMs });
  const alert = yield* tx.get(ALERT_BY_ID, { alertId: row.alertId });
  const attachments = alert ? yield* tx.all(ATTACHMENTS, { alertId: row.alertId }) : [];
  const channel = yield* tx.get(OUTBOX_CHANNEL, { channelId: row.channelId });
  const message = yield* tx.get(MESSAGE_REF, { routeId: route.id, alertId: row.alertId });
  const send: ClaimedRouteDelivery = {
    ...row, id: Number(row.id), attempts: Number(row.attempts) + 1, createdAt: Number(row.createdAt),
    route, alert, attachments, channel, messageRef: message?.ref ?? null,
  };
  return { send };
}
