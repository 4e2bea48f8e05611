import type pg from 'pg';
import type { AlertEventType } from '../../../domain/alert-store.js';
import { SqlChangeLog } from '../../shared/change-log.js';
import { statement } from '../../shared/statement.js';
import { PgExecutor } from '../executor.js';
import { CHANGE_LOG_LOCK } from '../../shared/advisory-locks.js';
import { channelOf, TOPICS } from '../notify-bus.js';

export interface NewChangeEvent {
  channelId: string;
  alertId: string;
  type: AlertEventType;
  now: number;
}

/**
 * Change events are appended inside the transaction that changes the alerts, in commit order.
 * PostgreSQL hands out identity values at insert and makes rows visible at commit, and two
 * transactions may commit in the other order than they drew their ids: a stream reader of `id >
 * last` would then see 12, move its cursor to 12, and never see 11. The transaction-level advisory
 * lock taken by the append, before the ids are drawn, is held until COMMIT or ROLLBACK, so appends
 * are serialised: whoever draws an id has seen every smaller id commit or roll back. Readers take
 * nothing (`eventsAfter` is exact as is); a write unit appends last (writeUnitTail in
 * src/db/pg/alert-store/unit.ts), so the lock is held one statement and the COMMIT, once per batch.
 *
 * The append as the end of one statement, after `ctes` (the unit's outbox rows),
 * its parameters numbered from `first` (see appendParams). Three CTEs of its own: the notification
 * (live streams on every node read the log at this COMMIT rather than at their next poll; PostgreSQL
 * folds identical ones), then the lock. Both are volatile, so materialised and read before the join
 * yields its first row: the lock is held before any identity value is drawn.
 */
export function appendEventsSql(ctes: readonly string[], first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `WITH ${[...ctes, `n AS (SELECT pg_notify('${channelOf(TOPICS.alertEvents)}', ''))`, `l AS (SELECT pg_advisory_xact_lock(${p(4)}))`].join(',\n  ')}
   INSERT INTO alert_events (channel_id, alert_id, type, created_at)
   SELECT c, a, t, at FROM n, l, unnest(${p(0)}::text[], ${p(1)}::text[], ${p(2)}::text[], ${p(3)}::bigint[]) WITH ORDINALITY AS e(c, a, t, at, n) ORDER BY n
   RETURNING id`;
}

/** appendEventsSql's parameters: the events as four columns, then the lock's key. */
export function appendParams(events: readonly NewChangeEvent[]): unknown[] {
  const cols: unknown[][] = [[], [], [], []];
  for (const e of events) [e.channelId, e.alertId, e.type, e.now].forEach((v, k) => cols[k]!.push(v));
  return [...cols, CHANGE_LOG_LOCK];
}

const HEAD_LOCK = statement(`SELECT pg_advisory_xact_lock_shared(${CHANGE_LOG_LOCK})`);
const HEAD = statement<Record<string, never>, { head: number }>('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS head FROM alert_events_id_seq');

/** The change log on PostgreSQL: the shared reads (src/db/shared/change-log.ts); events are appended by a write unit's last statement (`appendEventsSql`). */
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
