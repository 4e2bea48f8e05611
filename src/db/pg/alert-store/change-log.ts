import type pg from 'pg';
import type { AlertEventType } from '../../../domain/alert-store.js';
import { SqlChangeLog } from '../../shared/change-log.js';
import { statement } from '../../shared/statement.js';
import { PgExecutor } from '../executor.js';
import { CHANGE_LOG_LOCK } from '../../shared/advisory-locks.js';
import { publishVia, TOPICS } from '../notify-bus.js';
import { prepared } from '../prepared.js';

export interface NewChangeEvent {
  channelId: string;
  alertId: string;
  type: AlertEventType;
  now: number;
}

// One statement: the lock's CTE (materialised, its function being volatile) is read before the
// join yields its first row, so the lock is held before any identity value is drawn.
const APPEND_EVENTS = prepared(
  'append_events',
  `WITH l AS (SELECT pg_advisory_xact_lock($5))
   INSERT INTO alert_events (channel_id, alert_id, type, created_at)
   SELECT c, a, t, at FROM l, unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS e(c, a, t, at, n) ORDER BY n
   RETURNING id`,
);

/**
 * Appends change events inside the caller's transaction (the unit that changes the alerts), in
 * commit order. PostgreSQL hands out identity values at insert and makes rows visible at commit,
 * and two transactions may commit in the other order than they drew their ids: a stream reader of
 * `id > last` would then see 12, move its cursor to 12, and never see 11. The transaction-level
 * advisory lock taken here, before the ids are drawn, is held until COMMIT or ROLLBACK, so appends
 * are serialised: whoever draws an id has seen every smaller id commit or roll back. Readers take
 * nothing (`eventsAfter` is exact as is); the lock is held only for the rest of the appending
 * transaction, one per batch, so a batched writer pays it once for many alerts.
 */
export async function appendChangeEvents(tx: pg.PoolClient, events: readonly NewChangeEvent[]): Promise<number[]> {
  if (events.length === 0) return [];
  // Live streams on every node read the log at this COMMIT rather than at their next poll (one
  // notification per transaction: PostgreSQL folds identical ones). Sent before the lock: it is
  // delivered at COMMIT whenever it was queued, and the lock is held one round trip less.
  await publishVia(tx, TOPICS.alertEvents);
  const cols: unknown[][] = [[], [], [], []];
  for (const e of events) [e.channelId, e.alertId, e.type, e.now].forEach((v, k) => cols[k]!.push(v));
  const { rows } = await tx.query<{ id: number }>(APPEND_EVENTS([...cols, CHANGE_LOG_LOCK]));
  return rows.map((r) => r.id);
}

const HEAD_LOCK = statement(`SELECT pg_advisory_xact_lock_shared(${CHANGE_LOG_LOCK})`);
const HEAD = statement<Record<string, never>, { head: number }>('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS head FROM alert_events_id_seq');

/** The change log on PostgreSQL: the shared reads (src/db/shared/change-log.ts); events are appended by `appendChangeEvents`. */
export class PgChangeLog extends SqlChangeLog {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }

  /**
   * The newest id ever handed out, as committed: under the shared form of the append lock, so an
   * append in flight finishes first and its id is not reported before its row can be read. The
   * sequence, not max(id): pruned ids are never handed out again.
   */
  headEventId() {
    return this.database.transaction(function* (tx) {
      yield* tx.get(HEAD_LOCK, {});
      return (yield* tx.value(HEAD, {})) ?? 0;
    });
  }
}
