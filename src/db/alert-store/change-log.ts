import type Database from 'better-sqlite3';
import type { AlertEventType, ChangeEvent, ChangeLog, NotificationKind } from '../../domain/alert-store.js';

/**
 * The change log (`alert_events`, behind the live stream) and the outbox
 * (`notification_jobs`, behind e-mail). `event` and `notification` are called
 * inside the unit that changes the alert, so both commit or neither does.
 */
export class SqliteChangeLog implements ChangeLog {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      insertEvent: sqlite.prepare<[string, string, AlertEventType, number]>(
        'INSERT INTO alert_events (channel_id, alert_id, type, created_at) VALUES (?, ?, ?, ?)',
      ),
      insertJob: sqlite.prepare<[string, string, NotificationKind, number, number]>(
        `INSERT INTO notification_jobs (alert_id, channel_id, kind, state, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, 'pending', 0, ?, ?)`,
      ),
      prune: sqlite.prepare<[number]>('DELETE FROM alert_events WHERE created_at < ?'),
      // The autoincrement counter, not max(id): ids of pruned (or deleted) rows are never handed out again.
      head: sqlite.prepare<[], number>(`SELECT seq FROM sqlite_sequence WHERE name = 'alert_events'`).pluck(),
      oldest: sqlite.prepare<[], number | null>('SELECT min(id) FROM alert_events').pluck(),
      after: sqlite.prepare<[number, number], ChangeEvent>(
        'SELECT id, channel_id AS channelId, alert_id AS alertId, type FROM alert_events WHERE id > ? ORDER BY id LIMIT ?',
      ),
    };
  }

  /** Inside a unit. */
  event(channelId: string, alertId: string, type: AlertEventType, now: number): void {
    this.s.insertEvent.run(channelId, alertId, type, now);
  }

  /** Inside a unit. */
  notification(channelId: string, alertId: string, kind: NotificationKind, now: number): void {
    this.s.insertJob.run(alertId, channelId, kind, now, now);
  }

  async headEventId() {
    return this.s.head.get() ?? 0;
  }

  async oldestEventId() {
    return this.s.oldest.get() ?? null;
  }

  async eventsAfter(after: number, limit: number) {
    return this.s.after.all(after, limit);
  }

  async pruneEvents(before: number) {
    return this.s.prune.run(before).changes;
  }
}
