import type pg from 'pg';
import type { AlertEventType, ChangeEvent, ChangeLog } from '../../../domain/alert-store.js';
import { CHANGE_LOG_LOCK } from '../locks.js';
import { publishVia, TOPICS } from '../notify-bus.js';
import { inTransaction } from '../transaction.js';

export interface NewChangeEvent {
  channelId: string;
  alertId: string;
  type: AlertEventType;
  now: number;
}

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
  // One statement: the lock's CTE (materialised, its function being volatile) is read before the
  // join yields its first row, so the lock is held before any identity value is drawn.
  const { rows } = await tx.query<{ id: number }>(
    `WITH l AS (SELECT pg_advisory_xact_lock($5))
     INSERT INTO alert_events (channel_id, alert_id, type, created_at)
     SELECT c, a, t, at FROM l, unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS e(c, a, t, at, n) ORDER BY n
     RETURNING id`,
    [...cols, CHANGE_LOG_LOCK],
  );
  return rows.map((r) => r.id);
}

/** The change log's reads on PostgreSQL (the SQLite one: src/db/alert-store/change-log.ts). */
export class PgChangeLog implements ChangeLog {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * The newest id ever handed out, as committed: under the shared form of the append lock, so an
   * append in flight finishes first and its id is not reported before its row can be read. The
   * sequence, not max(id): pruned ids are never handed out again.
   */
  async headEventId() {
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock_shared($1)', [CHANGE_LOG_LOCK]);
      const { rows } = await client.query<{ last_value: number; is_called: boolean }>('SELECT last_value, is_called FROM alert_events_id_seq');
      const row = rows[0];
      return row?.is_called ? row.last_value : 0;
    });
  }

  async oldestEventId() {
    const { rows } = await this.pool.query<{ m: number | null }>('SELECT min(id) AS m FROM alert_events');
    return rows[0]?.m ?? null;
  }

  async eventsAfter(after: number, limit: number): Promise<ChangeEvent[]> {
    const { rows } = await this.pool.query<ChangeEvent>(
      'SELECT id, channel_id AS "channelId", alert_id AS "alertId", type FROM alert_events WHERE id > $1 ORDER BY id LIMIT $2',
      [after, limit],
    );
    return rows;
  }

  async pruneEvents(before: number) {
    const res = await this.pool.query('DELETE FROM alert_events WHERE created_at < $1', [before]);
    return res.rowCount ?? 0;
  }
}
