import type { ChangeEvent, ChangeLog } from '../../domain/alert-store.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

const OLDEST = statement<Record<string, never>, { oldest: number | null }>('SELECT min(id) AS oldest FROM alert_events');
const AFTER = statement<{ after: number; limit: number }, ChangeEvent>(
  'SELECT id, channel_id AS "channelId", alert_id AS "alertId", type FROM alert_events WHERE id > :after ORDER BY id LIMIT :limit',
);
const PRUNE = statement<{ before: number }>('DELETE FROM alert_events WHERE created_at < :before');

/**
 * The change log (`alert_events`, behind the live stream), read and pruned alike on both engines.
 * What differs is each engine's own subclass: how events are appended (SQLite: inside the group
 * commit's unit; PostgreSQL: in commit order under an advisory lock, announced on the notify bus)
 * and so how the newest id handed out is read.
 */
export abstract class SqlChangeLog implements ChangeLog {
  constructor(protected readonly database: SqlExecutor) {}

  /** The newest id ever handed out (0 when none): the sequence, not max(id), as pruned ids are never handed out again. */
  abstract headEventId(): Promise<number>;

  async oldestEventId() {
    return (await this.database.value(OLDEST, {})) ?? null;
  }

  eventsAfter(after: number, limit: number) {
    return this.database.all(AFTER, { after, limit });
  }

  pruneEvents(before: number) {
    return this.database.run(PRUNE, { before });
  }
}
