import type pg from 'pg';
import type { NotificationKind } from '../../../domain/alert-store.js';
import type { RouteEvent } from '../../../domain/routes/route-kinds.js';
import type { UnitBody, WriteUnits } from '../../shared/write-units.js';
import { stepsOn } from '../executor.js';
import { inTransaction } from '../transaction.js';
import { appendChangeEvents, type NewChangeEvent } from './change-log.js';
import { prepared } from '../prepared.js';

/** What one unit writes besides its own statements: appended at its end, so the change-log lock is held as briefly as possible. */
export interface Unit {
  tx: pg.PoolClient;
  events: NewChangeEvent[];
  jobs: { channelId: string; alertId: string; kind: NotificationKind; now: number }[];
  routeEvents: { channelId: string; alertId: string; event: RouteEvent; now: number }[];
}

const INSERT_JOBS = prepared(
  'insert_jobs',
  `INSERT INTO notification_jobs (alert_id, channel_id, kind, state, attempts, next_attempt_at, created_at)
   SELECT a, c, k, 'pending', 0, at, at FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS t(a, c, k, at)`,
);

const INSERT_ROUTE_DELIVERIES = prepared(
  'insert_route_deliveries',
  `INSERT INTO route_deliveries (route_id, alert_id, channel_id, event, state, attempts, next_attempt_at, created_at)
   SELECT r.id, t.a, t.c, t.e, 'pending', 0, t.at, t.at
   FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS t(a, c, e, at, n)
   JOIN routes r ON r.channel_id = t.c AND r.state = 'active' AND r.events LIKE '%,' || t.e || ',%'
   ORDER BY t.n, r.id`,
);

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
    if (u.jobs.length > 0) {
      const cols: unknown[][] = [[], [], [], []];
      for (const j of u.jobs) [j.alertId, j.channelId, j.kind, j.now].forEach((v, k) => cols[k]!.push(v));
      await tx.query(INSERT_JOBS(cols));
    }
    if (u.routeEvents.length > 0) {
      const cols: unknown[][] = [[], [], [], []];
      for (const e of u.routeEvents) [e.alertId, e.channelId, e.event, e.now].forEach((v, k) => cols[k]!.push(v));
      // One delivery per (event, active route forwarding it), in the order the events happened (src/domain/routes/alert-events.ts).
      await tx.query(INSERT_ROUTE_DELIVERIES(cols));
    }
    // Last: the append takes the change-log lock, held from here to COMMIT only.
    await appendChangeEvents(tx, u.events);
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
