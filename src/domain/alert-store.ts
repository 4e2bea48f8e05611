import type { Principal } from './tokens.js';
import type { AlertReports, ChannelRemoval } from './alert-reports.js';
import type { AlertLevel, AlertRow, AttachmentRecord, AttachmentRow, RunState, AlertEventType, NotificationKind } from './alert-rows.js';
import type { Outbox } from './outbox-store.js';
import type { ChatMessageWrites } from './chat-store.js';
import type { AlertStatus, HistoryRow, LifecycleChange, LifecycleState, SourceTransition } from './alert-lifecycle.js';

export type * from './alert-rows.js';

/** The lifecycle columns: never content, so no content write (insert, run, group or key update) names them. */
export type LifecycleKey = keyof LifecycleState | 'silencedBy' | 'silenceComment';
export type * from './outbox-store.js';
export type * from './chat-store.js';

/**
 * The domain's view of alert storage: every read and write of alert rows,
 * their attachments, the change log (`alert_events`), the outbox
 * (`notification_jobs`) and read state goes through these interfaces.
 *
 * They are the seam a second engine (PostgreSQL, whose driver is
 * asynchronous) plugs into, hence Promises everywhere: the SQLite
 * implementation (src/db/sqlite/alert-store/) does its work synchronously inside one
 * group-commit unit and resolves after COMMIT. A write method is one unit: all
 * its rows commit together or none do. Domain rules a write depends on are
 * passed in as plain functions (`decide`, `describeReply`), evaluated inside
 * the unit against the rows it reads.
 */


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
  /** Past this id in the page's order: strictly older (newest first), strictly newer (ascending). */
  cursor?: string;
  /** Strictly newer than this id. */
  after?: string;
  /** Only alerts with one of these statuses (at most the three there are). */
  status?: readonly AlertStatus[];
  /** Only the messages of this Discord thread (`alerts.thread_id`). */
  threadId?: string;
  /** Oldest first instead of newest first. */
  ascending?: boolean;
  limit: number;
}

/** An unread-only page of one channel for one user: newest first, strictly older than `cursor`. */
export type UnreadPageQuery = Pick<PageQuery, 'channelId' | 'cursor' | 'limit'>;

/** What rendering a page for one user needs besides the rows. */
export interface ReadContext {
  /** The user's watermark over `AlertRow.seq` (0: never marked read). */
  watermark: number;
  /** Per-alert read exceptions, by alert id; one counts only while its `seq` is the alert's. */
  exceptions: Map<string, { seq: number; isRead: boolean }>;
  attachments: Map<string, AttachmentRow[]>;
}

/** A visible channel's page with what rendering it for one user needs (the read API's list of alerts). */
export interface ChannelPage {
  channel: ChannelRecord;
  rows: AlertRow[];
  /** The user's read state and the attachments of `rows` (of every row, the one past the page's limit included). */
  context: ReadContext;
}

export interface AlertReads {
  /** Channels the principal may see, oldest first, with the user's unread count. */
  visibleChannels(p: Principal): Promise<(ChannelRecord & { unread: number })[]>;
  /** A visible channel by id or slug. */
  visibleChannel(p: Principal, ref: string): Promise<ChannelRecord | undefined>;
  visibleChannelIds(p: Principal): Promise<string[]>;
  /** Newest first (oldest first when `ascending`), `limit` rows at most. */
  page(q: PageQuery): Promise<AlertRow[]>;
  /** visibleChannel, page and readContext together; undefined when the channel is not visible. */
  channelPage(p: Principal, ref: string, q: Omit<PageQuery, 'channelId'>): Promise<ChannelPage | undefined>;
  /** The user's unread alerts only (watermark and exceptions), newest first: the same work per page whatever the user's lag. */
  unreadPage(userId: string, q: UnreadPageQuery): Promise<AlertRow[]>;
  visibleAlert(p: Principal, alertId: string): Promise<(AlertRow & { channelName: string; channelSlug: string }) | undefined>;
  alert(alertId: string): Promise<AlertRow | undefined>;
  readContext(userId: string, channelId: string, alertIds: string[]): Promise<ReadContext>;
  /** Sets one alert's read state for a user, as an exception to the channel watermark when it differs. */
  setRead(userId: string, alert: Pick<AlertRow, 'id' | 'channelId' | 'seq'>, isRead: boolean): Promise<void>;
  /** Moves the user's watermark to the newest activity of each channel and drops their exceptions there (one unit). */
  markAllRead(userId: string, channelIds: string[], now: number): Promise<void>;
}

/* ------------------------------------------------------------------ search */

/** One term of a parsed search query (src/domain/search-query.ts): plain text, never an engine operator. */
export interface SearchTermInput {
  text: string;
  prefix: boolean;
  phrase: boolean;
}

export interface SearchQuery {
  /** ANDed; at least one. */
  terms: readonly SearchTermInput[];
  /** Only alerts of these channels (the caller applies the visibility rule). */
  channelIds: readonly string[];
  /** Standard alerts of this level only (chat messages have none). */
  level?: AlertLevel;
  /** Only alerts with one of these statuses. */
  status?: readonly AlertStatus[];
  /** Only messages of this Discord thread, and only those of forum posts with this tag (by name). */
  threadId?: string;
  tag?: string;
  /** Strictly older than this search key (a previous hit's `searchKey`). */
  before?: number;
  limit: number;
}

/** A found alert and its search key: an integer that grows with insertion order and never changes for a stored alert. */
export type SearchHit = AlertRow & { searchKey: number };

/** One indexed part of an alert with the found words marked: `text` as stored (or an excerpt), `ranges` as [start, end) UTF-16 offsets. */
export interface HighlightedText {
  text: string;
  ranges: [number, number][];
}

export interface SearchHighlights {
  alertId: string;
  title: HighlightedText;
  /** An excerpt (at most about 16 words, cut with …) of message, field labels and values, workflow steps and error, link text, source. */
  body: HighlightedText;
  /** Actor name, e-mail and company, or the chat message's author. */
  actor: HighlightedText;
}

export interface AlertSearch {
  /** Newest first (insertion order), `limit` hits at most. */
  search(q: SearchQuery): Promise<SearchHit[]>;
  /** Where the terms occur in these alerts (those of `channelIds` only; an alert that no longer matches is left out). */
  highlights(terms: readonly SearchTermInput[], alertIds: readonly string[], channelIds: readonly string[]): Promise<SearchHighlights[]>;
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


/* ------------------------------------------------------------------ webhook writes */

/**
 * The stored columns of a standard alert (a workflow run's included): every row column but the
 * row's identity, order and chat-only columns, so a column added to AlertRow is content unless
 * named here (the write statements are built from src/db/shared/alert-content-columns.ts, which
 * must then name it too). The opaque metadata is written but never read back.
 */
export type AlertContent = Omit<
  AlertRow,
  'id' | 'channelId' | 'kind' | 'externalId' | 'authorJson' | 'replyToJson' | ChatThreadKey | 'activityKey' | 'seq' | 'createdAt' | 'updatedAt' | LifecycleKey
> & { metadataJson: string | null };

/** The chat-only columns of threads, forum posts and reactions. */
export type ChatThreadKey = 'threadId' | 'threadJson' | 'tagsJson' | 'reactionsJson' | 'reactionCount';

export interface NewStandardAlert {
  /** Chosen by the caller, so a unit run twice by the group commit writes the same id. */
  alertId: string;
  channelId: string;
  /** Billed one event in the same unit. */
  workspaceId: string;
  content: AlertContent;
  attachments: AttachmentRecord[];
  /** The outbox row written with it. */
  notify: NotificationKind;
  /** The answer kept for Idempotency-Key replays, written in the same unit. */
  idempotency?: { key: string; hash: string; answer(stored: StoredRun): unknown };
  now: number;
  /** A lifecycle move made in the same unit when this row is inserted: a source whose first message is already terminal (a run first POSTed `passed`, a group first seen `resolved`). */
  lifecycleOnInsert?: SourceTransition;
}

export interface StoredRun {
  alertId: string;
  /** False when an existing run was updated in place. */
  created: boolean;
}

/** What to do with an existing run, decided by the domain's state table from the stored state. */
export interface RunUpdate {
  /** A fresh activity key makes the alert unread again for everyone; null keeps it. */
  resurfaceAs: string | null;
  notify: NotificationKind | null;
  /** The lifecycle move the update makes (a run that passed resolves its alert); absent: none. */
  lifecycle?: SourceTransition;
}

/** What a sender's POST with a `dedupKey` does to the alert stored under it, decided by the domain. */
export interface KeyedUpdate extends RunUpdate {
  /** A reopen is a new episode: one more billable event. */
  countUsage: boolean;
  lifecycle: SourceTransition;
}

/** The alert stored under a sender's `dedupKey`, as the domain's decision sees it. */
export interface StoredKeyed {
  status: AlertStatus;
  level: AlertLevel;
}

export type SavedKeyed = StoredRun & { notified: boolean; released: string[] };

export interface StoredIdempotentAnswer {
  requestHash: string;
  /** The answer's JSON text as first sent, so a replay repeats it byte for byte. */
  json: string;
  createdAt: number;
}

export interface WebhookAlertWrites {
  /** Inserts a plain alert with its attachments, outbox row, change event and usage count (one unit). */
  insertAlert(a: NewStandardAlert): Promise<StoredRun>;
  /**
   * Inserts the alert of a new (channel, runId), or updates the existing one in
   * place as `decide` says (it may throw a domain error to refuse, which rolls
   * the unit back). New attachments replace the old ones, whose media keys come
   * back in `released`.
   */
  saveRun(a: NewStandardAlert, decide: (stored: RunState) => RunUpdate): Promise<StoredRun & { notified: boolean; released: string[] }>;
  /**
   * Inserts the alert of a new (channel, dedupKey), or updates the one stored under it as `decide`
   * says (content replaced, lifecycle moved); `decide` sees undefined when none is stored, and null
   * from it writes nothing and answers null (a resolve with nothing open). One unit.
   */
  saveKeyed(a: NewStandardAlert, dedupKey: string, decide: (stored: StoredKeyed | undefined) => KeyedUpdate | null): Promise<SavedKeyed | null>;
  /** Sets actor.avatarUrl unless the sender gave one; records the change. Whether anything changed. */
  setActorAvatar(alertId: string, url: string, now: number): Promise<boolean>;
  /** The answer stored for a webhook's Idempotency-Key. */
  idempotentAnswer(channelId: string, key: string): Promise<StoredIdempotentAnswer | undefined>;
  /** Drops idempotency answers stored before `before` (keys with `long.prefix`: before `long.before`); returns how many. */
  pruneIdempotentAnswers(before: number, long?: { prefix: string; before: number }): Promise<number>;
}

/* ------------------------------------------------------------------ lifecycle */

/** Status, snooze and their history (src/domain/alert-lifecycle.ts), on either engine (src/db/shared/alert-lifecycle-rows.ts). */
export interface AlertLifecycleWrites {
  /**
   * Reads the alert's lifecycle (locked on PostgreSQL), lets `decide` compute the change, and writes
   * it with its history rows and an `alert.updated` change event (one unit). Undefined when the
   * alert does not exist; `change` null when `decide` changed nothing.
   */
  change(alertId: string, decide: (current: LifecycleState) => LifecycleChange | null, now: number): Promise<{ channelId: string; change: LifecycleChange | null } | undefined>;
  /** The alert's history, oldest first. */
  history(alertId: string): Promise<HistoryRow[]>;
  /** History rows of every alert after `afterId`, in id order: a consumer's durable cursor over status changes. */
  historyAfter(afterId: number, limit: number): Promise<HistoryRow[]>;
}

/* ------------------------------------------------------------------ retention */

/** Which alerts of a channel retention removes; a running workflow run is never removed. */
export interface PruneRule {
  /** Alerts created before this time (epoch ms); null: no age limit. */
  olderThan: number | null;
  /** Alerts beyond the newest N; null: no count limit. */
  keepNewest: number | null;
}

export interface PrunedBatch {
  deleted: number;
  /** Media keys the deleted alerts used: release them after the commit (they may still be used elsewhere). */
  released: string[];
  /** Time spent inside the unit (selection, deletes, cascades, change events), ms. */
  unitMs: number;
}

export interface AlertRetention {
  /**
   * Deletes at most `limit` alerts the rule selects, oldest first, with their
   * attachments and read exceptions, and records an `alert.deleted` change for
   * each (one unit). Fewer than `limit` deleted means the channel is done.
   */
  pruneBatch(channelId: string, rule: PruneRule, limit: number, now: number): Promise<PrunedBatch>;
}

/* ------------------------------------------------------------------ facade */

/** Everything above, over one database. Consumers take the part they use. */
/** Deleting one alert of any kind (a leaked secret in a message): owners' and admins' moderation. */
export interface AlertRemoval {
  /**
   * Deletes the alert with its attachments (read exceptions cascade) and records
   * `alert.deleted` in the change log, in one unit. Null when it does not exist.
   */
  deleteAlert(alertId: string, now: number): Promise<{ channelId: string; released: string[] } | null>;
}

export interface AlertStore {
  readonly reads: AlertReads;
  readonly removal: AlertRemoval;
  readonly changes: ChangeLog;
  readonly webhook: WebhookAlertWrites;
  readonly lifecycle: AlertLifecycleWrites;
  readonly chat: ChatMessageWrites;
  readonly outbox: Outbox;
  readonly retention: AlertRetention;
  readonly search: AlertSearch;
  /** Counts and sizes for operators and the usage chart (src/domain/alert-reports.ts). */
  readonly reports: AlertReports;
  readonly channels: ChannelRemoval;
  /**
   * Whether any alert still uses this media key: synchronous on SQLite (the one process decides
   * and deletes in one tick), a query on PostgreSQL; the media store deletes only after every
   * answer is in and keeps a key an upload touched meanwhile (src/media/store.ts).
   */
  isMediaReferenced(key: string): boolean | Promise<boolean>;
  /** The newest alert id or activity key, to seed the id generator at start. */
  newestAlertKey(): string | null;
}
