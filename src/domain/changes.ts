import { EventEmitter } from 'node:events';
import type Database from 'better-sqlite3';

import type { alertEvents, notificationJobs } from '../db/schema/alerts.js';

/** The column enums of the schema, so the two can never drift apart. */
export type AlertEventType = (typeof alertEvents.$inferInsert)['type'];
export type NotificationKind = (typeof notificationJobs.$inferInsert)['kind'];

/**
 * In-process wake-ups, emitted only AFTER the writing transaction committed:
 * `alert-events` for the live stream, `notifications` for the delivery worker.
 * The rows themselves are the source of truth; a missed wake-up only delays.
 */
export class ChangeBus extends EventEmitter {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}

/**
 * Writes the change log (stream) and outbox (notifications) rows. Called inside
 * the transaction that changes the alert, so both commit or neither does.
 */
export class ChangeRecorder {
  private readonly insertEvent: Database.Statement;
  private readonly insertJob: Database.Statement;
  private readonly pruneEvents: Database.Statement;

  constructor(sqlite: Database.Database) {
    this.pruneEvents = sqlite.prepare('DELETE FROM alert_events WHERE created_at < ?');
    this.insertEvent = sqlite.prepare('INSERT INTO alert_events (channel_id, alert_id, type, created_at) VALUES (?, ?, ?, ?)');
    this.insertJob = sqlite.prepare(
      `INSERT INTO notification_jobs (alert_id, channel_id, kind, state, attempts, next_attempt_at, created_at)
       VALUES (?, ?, ?, 'pending', 0, ?, ?)`,
    );
  }

  event(channelId: string, alertId: string, type: AlertEventType, now: number): void {
    this.insertEvent.run(channelId, alertId, type, now);
  }

  notification(channelId: string, alertId: string, kind: NotificationKind, now: number): void {
    this.insertJob.run(alertId, channelId, kind, now, now);
  }

  /** Drops stream events older than `before` (a Last-Event-ID that old then gets a `resync`). Returns how many. */
  prune(before: number): number {
    return this.pruneEvents.run(before).changes;
  }
}
