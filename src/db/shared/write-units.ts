import type { AlertEventType, NotificationKind } from '../../domain/alert-store.js';
import type { AlertEventRecorder } from '../../domain/routes/alert-events.js';
import type { Step, TransactionSteps } from './executor.js';

/** What a write unit records besides its own statements, in its own transaction: the stream's change event, the outbox's job and the routes' deliveries. */
export interface UnitEffects extends AlertEventRecorder {
  event(channelId: string, alertId: string, type: AlertEventType, now: number): void;
  notification(channelId: string, alertId: string, kind: NotificationKind, now: number): void;
}

export type UnitBody<T> = (tx: TransactionSteps, effects: UnitEffects) => Step<T>;

/**
 * How an alert write runs as one unit that has committed when its promise resolves: on SQLite in
 * the group commit's transaction, synchronously (src/db/sqlite/write-units.ts; a unit may run twice
 * there, so a body only reads and writes rows); on PostgreSQL in a transaction of its own, the
 * effects appended at its end under the change-log lock (src/db/pg/alert-store/unit.ts).
 */
export interface WriteUnits {
  run<T>(body: UnitBody<T>): Promise<T>;
}
