import type { AlertRow } from '../alert-rows.js';
import type { RouteEvent } from './route-kinds.js';

/**
 * The one entry point for "an alert event happened": every write unit that opens, updates,
 * acknowledges, resolves or reopens an alert (a reopen is `alert.opened`) calls it inside its own
 * transaction, and it queues one route delivery per matching route of the alert's channel, so the
 * event and its deliveries commit together or not at all. Webhook writes call it today
 * (src/db/{sqlite,pg}/alert-store/webhook-writes.ts); the lifecycle and silence writes call the same.
 * Filters beyond the event (level, source, fields, silences) are decided when the row is sent.
 */
export interface AlertEventRecorder {
  alertEvent(event: RouteEvent, channelId: string, alertId: string, now: number): void;
}

/**
 * Why a route does not send for the alert, or null: asked when its delivery comes due, about the
 * moment the event happened (`at`), so a backlog sent after a silence ended stays silent (as e-mail).
 * Wired to the silences (src/domain/silences.ts `Silences.suppression`).
 */
export type AlertSuppression = (alert: Pick<AlertRow, 'id' | 'channelId' | 'level' | 'source' | 'title' | 'fieldsJson'>, at: number) => Promise<string | null>;
