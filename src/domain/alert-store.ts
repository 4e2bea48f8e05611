import type { alertAttachments, alertEvents, alerts, notificationJobs } from '../db/schema/alerts.js';
import type { Principal } from './tokens.js';

/**
 * The domain's view of alert storage: every read and write of alert rows,
 * their attachments, the change log (`alert_events`), the outbox
 * (`notification_jobs`) and read state goes through these interfaces.
 *
 * They are the seam a second engine (PostgreSQL, whose driver is
 * asynchronous) plugs into, hence Promises everywhere: the SQLite
 * implementation (src/db/alert-store/) does its work synchronously inside one
 * group-commit unit and resolves after COMMIT. A write method is one unit: all
 * its rows commit together or none do. Domain rules a write depends on are
 * passed in as plain functions (`decide`, `describeReply`), evaluated inside
 * the unit against the rows it reads.
 */

/** One alert row as stored (the opaque metadata excepted: nothing reads it back). */
export type AlertRow = Omit<typeof alerts.$inferSelect, 'metadataJson'>;
export type AttachmentRow = typeof alertAttachments.$inferSelect;
export type AlertLevel = AlertRow['level'];
export type RunState = NonNullable<AlertRow['workflowState']>;
/** The column enums of the schema, so the two can never drift apart. */
export type AlertEventType = (typeof alertEvents.$inferSelect)['type'];
export type NotificationKind = (typeof notificationJobs.$inferSelect)['kind'];

/** A file already in the media store, ready to be attached. */
export type AttachmentRecord = Pick<AttachmentRow, 'mediaKey' | 'mime' | 'kind' | 'name' | 'size'>;

/* ------------------------------------------------------------------ read side */

export interface ChannelRecord {
  id: string;
  name: string;
  slug: string;
  icon: string;
  isPrivate: boolean;
  webhookToken: string;
  discord: { channelId: string; guildId: string | null; guildName: string | null; channelName: string | null } | null;
}

export interface PageQuery {
  channelId: string;
  level?: AlertLevel;
  /** Strictly older than this id. */
  cursor?: string;
  /** Strictly newer than this id. */
  after?: string;
  limit: number;
}

/** What rendering a page for one user needs besides the rows. */
export interface ReadContext {
  watermark: string;
  /** Per-alert read exceptions, by alert id. */
  exceptions: Map<string, { activityKey: string; isRead: boolean }>;
  attachments: Map<string, AttachmentRow[]>;
}

export interface AlertReads {
  /** Channels the principal may see, oldest first, with the user's unread count. */
  visibleChannels(p: Principal): Promise<(ChannelRecord & { unread: number })[]>;
  /** A visible channel by id or slug. */
  visibleChannel(p: Principal, ref: string): Promise<ChannelRecord | undefined>;
  visibleChannelIds(p: Principal): Promise<string[]>;
  /** Newest first, `limit` rows at most. */
  page(q: PageQuery): Promise<AlertRow[]>;
  visibleAlert(p: Principal, alertId: string): Promise<(AlertRow & { channelName: string; channelSlug: string }) | undefined>;
  alert(alertId: string): Promise<AlertRow | undefined>;
  readContext(userId: string, channelId: string, alertIds: string[]): Promise<ReadContext>;
  /** Sets one alert's read state for a user, as an exception to the channel watermark when it differs. */
  setRead(userId: string, alert: Pick<AlertRow, 'id' | 'channelId' | 'activityKey'>, isRead: boolean): Promise<void>;
  /** Moves the user's watermark to the newest activity of each channel and drops their exceptions there (one unit). */
  markAllRead(userId: string, channelIds: string[], now: number): Promise<void>;
}

/* ------------------------------------------------------------------ change log */

export interface ChangeEvent {
  id: number;
  channelId: string;
  alertId: string;
  type: AlertEventType;
}

export interface ChangeLog {
  /** The newest change id ever assigned (0 when none). */
  headEventId(): Promise<number>;
  /** The oldest change id still kept, or null when the log is empty. */
  oldestEventId(): Promise<number | null>;
  eventsAfter(after: number, limit: number): Promise<ChangeEvent[]>;
  /** Drops changes older than `before`; returns how many. */
  pruneEvents(before: number): Promise<number>;
}

/* ------------------------------------------------------------------ facade */

/** Everything above, over one database. Consumers take the part they use. */
export interface AlertStore {
  readonly reads: AlertReads;
  readonly changes: ChangeLog;
}
