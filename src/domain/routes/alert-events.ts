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

/** Whether a route still sends for the alert when its delivery comes due (silences plug in here at merge). */
export type AlertSuppression = (alert: { id: string; channelId: string }, now: number) => Promise<string | null>;

export const NEVER_SUPPRESSED: AlertSuppression = () => Promise.resolve(null);
