import type pg from 'pg';
import type { NotificationKind } from '../../../domain/alert-store.js';
import type { RouteEvent } from '../../../domain/routes/route-kinds.js';
import type { UnitBody, WriteUnits } from '../../shared/write-units.js';
import { stepsOn } from '../executor.js';
import { inTransaction } from '../transaction.js';
import { appendEventsSql, appendParams, type NewChangeEvent } from './change-log.js';
import { prepared } from '../prepared.js';

/** What one unit writes besides its own statements: appended at its end, so the change-log lock is held as briefly as possible. */
export interface Unit {
  tx: pg.PoolClient;
  events: NewChangeEvent[];
  jobs: { channelId: string; alertId: string; kind: NotificationKind; now: number }[];
  routeEvents: { channelId: string; alertId: string; event: RouteEvent; now: number }[];
}

/**
 * The unit's outbox rows as data-modifying CTEs on $1…$8 (empty arrays insert nothing): its
 * notification jobs, and one route delivery per (event, active route forwarding it), in the order
 * the events happened (src/domain/routes/alert-events.ts).
 */
const OUTBOX_CTES = [
  `jobs AS (INSERT INTO notification_jobs (alert_id, channel_id, kind, state, attempts, next_attempt_at, created_at)
   SELECT a, c, k, 'pending', 0, at, at FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS t(a, c, k, at))`,
  `deliveries AS (INSERT INTO route_deliveries (route_id, alert_id, channel_id, event, state, attempts, next_attempt_at, created_at)
   SELECT r.id, t.a, t.c, t.e, 'pending', 0, t.at, t.at
   FROM unnest($5::text[], $6::text[], $7::text[], $8::bigint[]) WITH ORDINALITY AS t(a, c, e, at, n)
   JOIN routes r ON r.channel_id = t.c AND r.state = 'active' AND r.events LIKE '%,' || t.e || ',%'
   ORDER BY t.n, r.id)`,
];

/** The unit's last statement: its outbox rows, then its change events appended under the change-log lock (change-log.ts). */
const OUTBOX_AND_EVENTS = prepared('unit_outbox_events', appendEventsSql(OUTBOX_CTES, 9));
/** A unit with outbox rows and no change event. */
const OUTBOX_ONLY = prepared('unit_outbox', `WITH ${OUTBOX_CTES.join(',\n  ')} SELECT 1`);

/** Rows as columns, for `unnest`. */
function columns<T>(rows: readonly T[], width: number, row: (r: T) => unknown[]): unknown[][] {
  const cols: unknown[][] = Array.from({ length: width }, () => []);
  for (const r of rows) row(r).forEach((v, k) => cols[k]!.push(v));
  return cols;
}

/**
 * A unit's last statement, whatever it queued: its outbox rows and route deliveries, then its change
 * events appended under the change-log lock (change-log.ts), with the live streams' notification.
 * One round trip; the append is last, so the lock is held from there to COMMIT only.
 */
export async function writeUnitTail(tx: pg.ClientBase, u: Pick<Unit, 'events' | 'jobs' | 'routeEvents'>): Promise<void> {
  const outbox = [
    ...columns(u.jobs, 4, (j) => [j.alertId, j.channelId, j.kind, j.now]),
    ...columns(u.routeEvents, 4, (e) => [e.alertId, e.channelId, e.event, e.now]),
  ];
  if (u.events.length > 0) await tx.query(OUTBOX_AND_EVENTS([...outbox, ...appendParams(u.events)]));
  else if (u.jobs.length > 0 || u.routeEvents.length > 0) await tx.query(OUTBOX_ONLY(outbox));
}

/**
 * Runs `body` in one transaction on a pool client: BEGIN, the body, the outbox rows and change
 * events it queued, COMMIT; ROLLBACK on any error (a domain refusal thrown by `decide` included),
 * so a failed unit leaves nothing behind. Resolves after COMMIT, with the server's default
 * `synchronous_commit` (on): a resolved write is durable, as a 201 promises.
 */
export async function inUnit<T>(pool: pg.Pool, body: (u: Unit) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (tx) => {
    const u: Unit = { tx, events: [], jobs: [], routeEvents: [] };
    const result = await body(u);
    await writeUnitTail(tx, u);
    return result;
  });
}

/** Shared write units on PostgreSQL: each body's steps on the unit's client; its effects queued and appended at the unit's end. */
export class PgWriteUnits implements WriteUnits {
  constructor(private readonly pool: pg.Pool) {}

  run<T>(body: UnitBody<T>): Promise<T> {
    return inUnit(this.pool, (u) =>
      stepsOn(u.tx, (tx) =>
        body(tx, {
          event: (channelId, alertId, type, now) => void u.events.push({ channelId, alertId, type, now }),
          notification: (channelId, alertId, kind, now) => void u.jobs.push({ channelId, alertId, kind, now }),
          alertEvent: (event, channelId, alertId, now) => void u.routeEvents.push({ channelId, alertId, event, now }),
        }),
      ),
    );
  }
}
