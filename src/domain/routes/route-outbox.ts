import type { AlertRow, AttachmentRow } from '../alert-rows.js';
import type { OutboxChannel } from '../outbox-store.js';
import type { RouteEvent } from './route-kinds.js';
import type { RouteRow } from './route-rows.js';

/** A delivery claimed for sending: the row, its route, the alert as it is now, and the message a previous event posted. */
export interface ClaimedRouteDelivery {
  id: number;
  routeId: string;
  alertId: string;
  channelId: string;
  event: RouteEvent;
  /** Attempts including this one. */
  attempts: number;
  createdAt: number;
  route: RouteRow;
  alert: AlertRow | undefined;
  attachments: AttachmentRow[];
  channel: OutboxChannel | undefined;
  messageRef: string | null;
}

/** A claim's answer: the delivery to send, or "the route's rate limit is full until `until`" (the row waits, never dropped). */
export type RouteClaim = { send: ClaimedRouteDelivery } | { throttledUntil: number } | null;

/** One row of the delivery log (routes, e-mail and push alike). */
export interface DeliveryLogRow {
  kind: 'route' | 'email' | 'push';
  routeId: string | null;
  routeKind: string | null;
  /** The route's masked target, the recipient's e-mail address, or the push device's label. */
  target: string;
  userId: string | null;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: number | null;
}

/** The routes' outbox (src/db/shared/route-outbox.ts); safe with every PostgreSQL node running the worker. */
export interface RouteOutboxStore {
  /** Rows left `sending` past their lease (a crash mid-request) go back to pending: sent again once, with the same id. */
  recoverInterrupted(now: number): Promise<number>;
  /** Due rows of active routes sealed under `keyId`, each the oldest unfinished one of its (route, alert). */
  due(now: number, limit: number, keyId: string): Promise<number[]>;
  claim(id: number, now: number, leaseMs: number): Promise<RouteClaim>;
  recordSent(id: number, routeId: string, alertId: string, status: number, messageRef: string | null, now: number): Promise<void>;
  /** A failed attempt: retried at `at`, or failed when `at` is null. Returns when the route started failing. */
  recordFailure(id: number, routeId: string, at: number | null, status: number | null, error: string, now: number): Promise<number>;
  recordSkipped(id: number, reason: string, now: number): Promise<void>;
  /** Pauses an active route; false when it was already paused (another node did it). */
  pauseRoute(routeId: string, reason: string, now: number): Promise<boolean>;
  nextDue(keyId: string): Promise<number | null>;
  prune(before: number): Promise<void>;
  /** The delivery log of one alert: its route rows, e-mail rows and push rows. */
  deliveriesOfAlert(alertId: string): Promise<DeliveryLogRow[]>;
}
