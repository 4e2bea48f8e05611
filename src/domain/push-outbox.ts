import type { AlertRow, NotificationKind, OutboxChannel } from './alert-store.js';
import type { EscalationMark } from './escalation/escalation-notice.js';

/** One push delivery row: a job's push to one subscription. */
export interface PushTarget {
  jobId: number;
  subscriptionId: string;
}

export interface PushDeliveryRow extends PushTarget, EscalationMark {
  userId: string;
  channelId: string;
  alertId: string;
  kind: NotificationKind;
  /** Attempts made before this one. */
  attempts: number;
}

/** What the browser gave: where to POST and the keys to encrypt to. */
export interface PushEndpoint {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** A user's push flood window on a channel, as stored. */
export interface PushWindow {
  windowStart: number;
  windowEnd: number;
  sent: number;
  folded: number;
}

/** What the push flood guard decided for one push (flood.ts). */
export type PushFloodStep = { kind: 'open'; windowStart: number; windowEnd: number } | { kind: 'count' } | { kind: 'fold' };

export type PushClaimDecision<T> = { skip: string } | { send: T; flood: PushFloodStep | null };

export interface PushClaimInput {
  delivery: PushDeliveryRow;
  alert: AlertRow | undefined;
  channel: OutboxChannel | undefined;
  subscription: PushEndpoint | undefined;
  /** Only on a first attempt (a retry is not a new push for the guard). */
  window: PushWindow | undefined;
}

/**
 * The push half of the outbox (src/db/push-rows.ts). Rows are written by the
 * e-mail outbox's fan-out (one transaction with the job's e-mail deliveries);
 * each method here is one transaction.
 */
export interface PushOutbox {
  /** Rows left `sending` by a crash: recorded failed, never resent. How many. On PostgreSQL only those claimed longer ago than the send lease. */
  recoverInterrupted(reason: string, now: number): Promise<number>;
  due(now: number, limit: number): Promise<PushTarget[]>;
  /** Re-reads the row, its alert, channel, subscription (and flood window), lets `decide` skip or send, applies the flood step, marks it `sending`. */
  claim<T>(target: PushTarget, now: number, decide: (c: PushClaimInput) => PushClaimDecision<T>): Promise<{ value: T; attempts: number } | null>;
  /** Also the subscription's last success. */
  recordSent(target: PushTarget, now: number): Promise<void>;
  recordRetry(target: PushTarget, at: number, reason: string, now: number): Promise<void>;
  /** Also the subscription's last error. */
  recordFailed(target: PushTarget, reason: string, now: number): Promise<void>;
  /** The push service said the subscription is gone (404/410): the row goes, with its pending pushes. */
  removeSubscription(subscriptionId: string): Promise<void>;
  nextDue(): Promise<number | null>;
  prune(before: number, windowsBefore: number): Promise<void>;
}
