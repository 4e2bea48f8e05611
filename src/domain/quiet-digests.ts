import type { AlertLevel } from './alert-rows.js';
import type { AlertStatus } from './alert-lifecycle.js';
import type { Recipient } from './notification-preferences.js';
import type { QuietHours } from './quiet-hours.js';

/**
 * The quiet-hours digests (tables quiet_digests, quiet_holds): alerts held back from a person by
 * their quiet hours, sent as one e-mail when the window ends. Held in the outbox fan-out's
 * transaction (src/db/shared/outbox.ts); claimed, sent and recorded like the flood guard's digests,
 * so each is sent once across restarts and nodes. Implemented by src/db/shared/quiet-digests.ts.
 */
export interface QuietDigest {
  id: number;
  userId: string;
  dueAt: number;
  attempts: number;
}

/** One held alert as the digest claim reads it: the alert and channel now (null when deleted), and whether the person may still get it. */
export interface HeldAlert {
  alertId: string;
  channelId: string;
  heldAt: number;
  alert: { title: string; level: AlertLevel; status: AlertStatus; createdAt: number } | null;
  channel: { slug: string; name: string; workspaceName: string } | null;
  /** The recipient rule for that channel now (visibility and level), undefined when they can no longer see it. */
  recipient: Recipient | undefined;
}

export interface QuietDigestOwner {
  email: string;
  name: string;
  emailVerified: boolean;
  quiet: QuietHours | null;
}

export type QuietDigestDecide<T> = (c: { digest: QuietDigest; owner: QuietDigestOwner | undefined; held: HeldAlert[] }) => { skip: string } | { send: T };

export interface QuietDigestOutbox {
  due(now: number, limit: number): Promise<number[]>;
  /** One transaction: the pending digest (locked on PostgreSQL), its owner and held alerts; `decide` skips or sends; a send is marked `sending`. */
  claim<T>(id: number, now: number, decide: QuietDigestDecide<T>): Promise<{ value: T; digest: QuietDigest; attempts: number } | null>;
  recordSent(id: number, messageId: string, now: number): Promise<void>;
  recordFailed(id: number, reason: string, now: number): Promise<void>;
  recordRetry(id: number, at: number, reason: string, now: number): Promise<void>;
  nextDue(): Promise<number | null>;
  anythingDue(now: number): Promise<boolean>;
  /** Digests left `sending` by a crash: failed, never resent (on PostgreSQL only past the send lease). */
  recoverInterrupted(reason: string, now: number): Promise<number>;
  prune(before: number): Promise<void>;
}
