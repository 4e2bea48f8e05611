/**
 * The store's counting reads for operators and the dashboard (sizes, backlog,
 * charts) and the removal of a channel's alerts: the alert store owns every
 * statement against the alert tables, these included (implemented in
 * src/db/sqlite/alert-store/reports.ts and channel-removal.ts).
 */

/** A pending job due for longer than this means the worker is not keeping up (or SMTP is down). */
export const OUTBOX_STALE_AFTER_MS = 5 * 60_000;

export interface OutboxBacklog {
  /** Notification jobs not yet fanned out (state `pending`). */
  pending: number;
  /** Of those, the ones due for longer than OUTBOX_STALE_AFTER_MS. */
  stale: number;
  /** Age of the longest-due pending job, 0 when none is due. */
  oldestDueMs: number;
}

/** One failed delivery, digest or job, newest first (`admin notify status`). */
export interface OutboxFailure {
  /** An e-mail delivery, a digest, a Web Push delivery, or a job that could not be fanned out. */
  what: 'delivery' | 'digest' | 'quiet-digest' | 'push' | 'job';
  jobId: string | null;
  digestId: string | null;
  userId: string | null;
  email: string | null;
  alertId: string | null;
  attempts: number;
  lastError: string | null;
  at: string;
}

export interface OutboxStatus {
  /** Rows per state of each outbox table. */
  jobs: Record<string, number>;
  deliveries: Record<string, number>;
  digests: Record<string, number>;
  /** Quiet-hours digests (one per person and window) per state. */
  quietDigests: Record<string, number>;
  /** Web Push deliveries (one per subscription and job) per state. */
  pushes: Record<string, number>;
  failures: OutboxFailure[];
}

export interface AlertReports {
  /** Alerts per channel (every channel with at least one alert). */
  alertsPerChannel(): Promise<Map<string, number>>;
  /** Bytes of the distinct media files each channel's, or each workspace's, alerts reference. */
  mediaBytesBy(owner: 'channel' | 'workspace'): Promise<Map<string, number>>;
  /** Bytes of every distinct media file any alert references. */
  mediaBytes(): Promise<number>;
  outboxBacklog(now: number): Promise<OutboxBacklog>;
  outboxStatus(failureLimit: number): Promise<OutboxStatus>;
  /** Alerts per UTC day per channel of a workspace created since `sinceMs` (the dashboard's usage chart). */
  alertsPerDay(workspaceId: string, sinceMs: number): Promise<{ day: string; channelId: string; count: number }[]>;
  /** Stored alerts per UTC month per channel of a workspace, newest month first (a member's usage totals). */
  alertsPerMonth(workspaceId: string): Promise<{ month: string; channelId: string; count: number }[]>;
}

export interface ChannelRemoval {
  /**
   * Deletes a channel with its alerts, attachment rows, read state and
   * preferences (one unit of the group commit) and answers the media keys its
   * alerts used: the caller releases them after the commit, if nothing else
   * uses them.
   */
  deleteChannelWithAlerts(channelId: string): Promise<string[]>;
}
