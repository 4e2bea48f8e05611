import type { AlertRow, AttachmentRow, NotificationKind } from './alert-rows.js';
import type { Silence } from './silences.js';
import type { EscalationMark } from './escalation/escalation-notice.js';

/**
 * The outbox side of the alert store (`notification_jobs`, deliveries, digests,
 * flood windows): what the e-mail and push workers (src/notify/) claim, send
 * and record. Implemented by src/db/shared/outbox.ts; re-exported by
 * alert-store.ts, the store's one entry point.
 */

export interface OutboxJob extends EscalationMark {
  id: number;
  alertId: string;
  channelId: string;
  kind: NotificationKind;
  /** When the change that owes the notification was stored: what silences are checked against, however late the fan-out runs. */
  createdAt: number;
}

/** What fanning a job out does: the recipients' delivery rows, and the note the job is closed with. */
export interface FanOutPlan {
  deliverTo: string[];
  note: string | null;
  /** Users whose Web Push subscriptions each get a push delivery row (src/notify/push/). */
  pushTo?: string[];
  /** People whose quiet hours hold this alert for their digest (src/domain/quiet-hours.ts), instead of a delivery and a push. */
  hold?: QuietHold[];
  /** The silence that muted this notification (stored on the alert), null for none; absent leaves the alert as it is. */
  silencedBy?: { id: string; comment: string } | null;
}

/** A person's alert held until their quiet hours end (`until`: the digest's due time). */
export interface QuietHold {
  userId: string;
  until: number;
}

/** The alert as the fan-out reads it: its level, what silences match on, and the silence it names now. */
export type FanOutSubject = Pick<AlertRow, 'channelId' | 'level' | 'title' | 'source' | 'fieldsJson' | 'silencedBy'>;

/** A failed job attempt: back to pending at `at`, or failed for good. */
export interface JobRetry {
  giveUp: boolean;
  at: number;
  reason: string;
}

export interface OutboxDelivery extends EscalationMark {
  jobId: number;
  userId: string;
  channelId: string;
  alertId: string;
  /** Attempts made before this one. */
  attempts: number;
  /** Null when the job row was pruned meanwhile. */
  kind: NotificationKind | null;
}

export interface OutboxDigest {
  id: number;
  userId: string;
  channelId: string;
  windowStart: number;
  windowEnd: number;
  attempts: number;
}

export interface OutboxChannel {
  name: string;
  slug: string;
  icon: string;
  workspaceName: string;
}

/** A recipient's flood window on a channel, as stored. */
export interface FloodWindow {
  windowStart: number;
  windowEnd: number;
  sent: number;
  digestId: number | null;
  /** The state of the window's digest, when it has one. */
  digestState: string | null;
}

/** What the flood guard decided for one e-mail (src/notify/outbox/flood-guard.ts). */
export type FloodStep =
  | { kind: 'open'; windowStart: number; windowEnd: number }
  | { kind: 'count' }
  | { kind: 'fold'; digestId: number }
  | { kind: 'new-digest'; windowStart: number; windowEnd: number };

export type ClaimDecision<T> = { skip: string } | { send: T; flood: FloodStep | null };

/** A delivery row or a digest row: they share the send path and its outcomes. */
/** What a delivery claim decides from: the row, its alert and channel, and (on a first attempt) the flood window. */
export type DeliveryDecide<T> = (c: {
  delivery: OutboxDelivery;
  alert: AlertRow | undefined;
  channel: OutboxChannel | undefined;
  window: FloodWindow | undefined;
}) => ClaimDecision<T>;

/** What a digest claim decides from: the digest, its channel and its alerts, oldest first. */
export type DigestDecide<T> = (c: { digest: OutboxDigest; channel: OutboxChannel | undefined; alerts: AlertRow[] }) => { skip: string } | { send: T };

export type OutboxTarget = { jobId: number; userId: string } | { digestId: number };

/**
 * The outbox beyond its jobs: delivery rows per recipient, flood windows and
 * digests. Each method is one transaction; the decisions inside (who gets it,
 * the flood guard) are the worker's, passed in as plain functions.
 */
export interface Outbox {
  /**
   * Rows left `sending` by a crash: recorded failed with `reason`, never resent. How many. With
   * several nodes (PostgreSQL) only rows claimed longer ago than the send lease: a younger one may
   * be in another live node's send right now.
   */
  recoverInterrupted(reason: string, now: number): Promise<number>;
  dueJobs(now: number, limit: number): Promise<number[]>;
  /** The job's delivery rows and its `done`, in one transaction; nothing when the job is no longer pending. */
  /** `silences`: those of the alert's workspace that may hold at the job's `createdAt` (read in the same transaction). */
  fanOut(jobId: number, now: number, plan: (job: OutboxJob, alert: FanOutSubject | undefined, silences: Silence[]) => FanOutPlan): Promise<void>;
  /** Records a failed fan-out; `retry` gets the attempts so far (this one included). */
  retryJob(jobId: number, retry: (attempts: number) => JobRetry): Promise<{ attempts: number; giveUp: boolean } | undefined>;
  dueDeliveries(now: number, limit: number): Promise<{ jobId: number; userId: string }[]>;
  dueDigests(now: number, limit: number): Promise<number[]>;
  /**
   * One transaction: re-reads the delivery, its alert and channel (and the
   * flood window on a first attempt), lets `decide` skip it or send it, applies
   * the flood step, then marks the row `sending`. Null when skipped, folded
   * into a digest, or no longer pending.
   */
  claimDelivery<T>(
    jobId: number,
    userId: string,
    now: number,
    decide: DeliveryDecide<T>,
  ): Promise<{ value: T; attempts: number } | null>;
  /** The digest's counterpart: `decide` sees its alerts (oldest first). */
  claimDigest<T>(
    digestId: number,
    now: number,
    decide: DigestDecide<T>,
  ): Promise<{ value: T; digest: OutboxDigest; attempts: number } | null>;
  /** The Message-ID of the `workflow.started` e-mail a recipient got for this alert (for References). */
  startedMessageId(alertId: string, userId: string): Promise<string | undefined>;
  attachmentsOf(alertId: string): Promise<AttachmentRow[]>;
  recordSent(target: OutboxTarget, messageId: string, now: number): Promise<void>;
  recordFailed(target: OutboxTarget, reason: string, now: number): Promise<void>;
  recordRetry(target: OutboxTarget, at: number, reason: string, now: number): Promise<void>;
  /** The earliest due time of pending work (deliveries and digests only when `mail`), or null. */
  nextDue(mail: boolean): Promise<number | null>;
  anythingDue(now: number, mail: boolean): Promise<boolean>;
  /** Drops finished rows created before `before` and flood windows that ended before `windowsBefore` (one transaction). */
  prune(before: number, windowsBefore: number): Promise<void>;
}

