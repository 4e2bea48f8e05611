// Alerts and what hangs off them, for both engines (define.ts). Triggers keep channel_stats, seq and
// read_marks.gone_above (the channel_stats and unread_sequence migrations of drizzle/ and drizzle-pg/).
// Search is engine-specific and left out of this definition on purpose: SQLite's FTS5 table, and on
// PostgreSQL two columns of `alerts` added by custom SQL (drizzle-pg/0005_search.sql): `search_key`
// (identity) and `search_vector` (stored generated tsvector, GIN-indexed). No application code writes
// them, export and import leave them out, and the schema parity test compares what both engines share.
// Likewise `out_of_order` and its index `alerts_channel_read_order_idx` (drizzle/0028_unread_order.sql,
// drizzle-pg/0021_unread_order.sql): kept by triggers for the unread-only feed (src/db/shared/unread-pages.ts).
import { sql } from 'drizzle-orm';
import { channels } from './channels.js';
import { users, workspaces } from './accounts.js';
import { contentColumns } from './content-columns.js';
import { autoId, bigint, boolean, integer, text, table } from './define.js';

/**
 * One row per alert. Standard alerts (webhook) and chat messages (Discord) share
 * the table so that pagination, read state and the stream work the same for both.
 *
 * `id` sorts in creation order (see src/lib/ids.ts); `activity_key` starts equal
 * to `id` and is bumped to a fresh key when an alert resurfaces (a finished
 * workflow run), which makes it unread again against every read watermark.
 */
export const [alerts, pgAlerts] = table(
  'alerts',
  {
    id: text('id').primaryKey(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['standard', 'chat'] }).notNull(),
    // title … workflow_error: one definition for both engines (src/db/shared/alert-content-columns.ts)
    ...contentColumns(),
    // chat-connected channels
    externalId: text('external_id'),
    authorJson: text('author_json'),
    replyToJson: text('reply_to_json'),
    /**
     * Discord threads, forum posts and reactions (docs/discord.md): the thread's snowflake, and copies
     * of `chat_threads` ({id, name} and the post's tag names) that a rename or tag change rewrites, so a
     * list page renders without a join; the reaction summary `[{emoji, count}]` and its total.
     */
    threadId: text('thread_id'),
    threadJson: text('thread_json'),
    tagsJson: text('tags_json'),
    reactionsJson: text('reactions_json'),
    reactionCount: integer('reaction_count').notNull().default(0),
    /**
     * The silence that muted this alert's latest notification (src/domain/silences.ts), set when the
     * outbox decides who is told; its comment is copied beside it, as a silence's comment never changes.
     */
    silencedBy: text('silenced_by'),
    silenceComment: text('silence_comment'),
    activityKey: text('activity_key').notNull(),
    /**
     * Position in the channel's read order: assigned at insert from
     * `channel_stats.seq_max + 1` and moved to a fresh one when the alert
     * resurfaces. Read state and unread counts are arithmetic on it (README
     * "Read state that scales"); 0 only transiently, for an INSERT that did not
     * give one (the insert trigger assigns it then).
     */
    seq: bigint('seq').notNull().default(0),
    createdAt: bigint('created_at').notNull(),
    updatedAt: bigint('updated_at').notNull(),
    /**
     * The lifecycle shared by the workspace (docs/handling-alerts.md): not content, so no content write
     * touches it; the `*_by_json` columns hold {id, name} as the person or source was named then.
     */
    status: text('status', { enum: ['open', 'acknowledged', 'resolved'] }).notNull().default('open'),
    acknowledgedAt: bigint('acknowledged_at'),
    acknowledgedByJson: text('acknowledged_by_json'),
    resolvedAt: bigint('resolved_at'),
    resolvedByJson: text('resolved_by_json'),
    snoozedUntil: bigint('snoozed_until'),
    occurrences: integer('occurrences').notNull().default(1),
  },
  (t, { index, uniqueIndex }) => [
    index('alerts_channel_id_idx').on(t.channelId, t.id),
    index('alerts_channel_level_id_idx').on(t.channelId, t.level, t.id),
    uniqueIndex('alerts_channel_run_uq')
      .on(t.channelId, t.workflowRunId)
      .where(sql`${t.workflowRunId} IS NOT NULL`),
    uniqueIndex('alerts_channel_dedup_uq')
      .on(t.channelId, t.dedupKey)
      .where(sql`${t.dedupKey} IS NOT NULL`),
    index('alerts_channel_status_id_idx').on(t.channelId, t.status, t.id),
    index('alerts_channel_thread_idx')
      .on(t.channelId, t.threadId, t.id)
      .where(sql`${t.threadId} IS NOT NULL`),
    uniqueIndex('alerts_channel_external_uq')
      .on(t.channelId, t.externalId)
      .where(sql`${t.externalId} IS NOT NULL`),
  ],
);

/** Attachments point at content-addressed files in the media store (key = `<sha256>.<ext>`). */
export const [alertAttachments, pgAlertAttachments] = table(
  'alert_attachments',
  {
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    mediaKey: text('media_key').notNull(),
    mime: text('mime').notNull(),
    kind: text('kind', { enum: ['image', 'video', 'audio'] }).notNull(),
    name: text('name'),
    size: bigint('size').notNull(),
  },
  (t, { index, primaryKey }) => [primaryKey({ columns: [t.alertId, t.position] }), index('alert_attachments_media_idx').on(t.mediaKey)],
);

/**
 * Read state is a per-(user, channel) watermark over `alerts.seq` plus
 * per-alert exceptions. An exception only counts while its `seq` equals the
 * alert's, so resurfacing an alert voids it. `gone_above` counts the sequence
 * numbers above the watermark that no longer hold an alert (deleted, or moved
 * by resurfacing), kept by triggers on `alerts`, so that the unread count is
 * `seq_max - watermark_seq - gone_above` plus the exceptions.
 */
export const [readMarks, pgReadMarks] = table(
  'read_marks',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    watermarkSeq: bigint('watermark_seq').notNull().default(0),
    goneAbove: bigint('gone_above').notNull().default(0),
    updatedAt: bigint('updated_at').notNull(),
  },
  // The channel index serves the triggers that bump gone_above when an alert leaves.
  (t, { index, primaryKey }) => [primaryKey({ columns: [t.userId, t.channelId] }), index('read_marks_channel_idx').on(t.channelId, t.watermarkSeq)],
);

export const [readExceptions, pgReadExceptions] = table(
  'read_exceptions',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    seq: bigint('seq').notNull().default(0),
    isRead: boolean('is_read').notNull(),
  },
  (t, { index, primaryKey }) => [
    primaryKey({ columns: [t.userId, t.alertId] }),
    index('read_exceptions_user_channel_idx').on(t.userId, t.channelId),
    // Deleting an alert cascades here: without an index on alert_id, SQLite scans the
    // whole table once per deleted alert (retention deletes hundreds per batch).
    index('read_exceptions_alert_idx').on(t.alertId),
  ],
);

/** Completed webhook answers kept for Idempotency-Key replays (24 h). */
export const [idempotencyKeys, pgIdempotencyKeys] = table(
  'idempotency_keys',
  {
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    status: integer('status').notNull(),
    responseJson: text('response_json').notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index, primaryKey }) => [primaryKey({ columns: [t.channelId, t.key] }), index('idempotency_created_idx').on(t.createdAt)],
);

/** Billable events per workspace and calendar month (UTC, `YYYY-MM`). */
export const [usageCounters, pgUsageCounters] = table(
  'usage_counters',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    month: text('month').notNull(),
    events: bigint('events').notNull().default(0),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.workspaceId, t.month] })],
);

/**
 * Transactional outbox: written in the same transaction as the alert change
 * that causes it; src/notify delivers it.
 */
export const [notificationJobs, pgNotificationJobs] = table(
  'notification_jobs',
  {
    id: autoId('id'),
    alertId: text('alert_id').notNull(),
    channelId: text('channel_id').notNull(),
    kind: text('kind', { enum: ['alert.created', 'alert.resolved', 'workflow.started', 'workflow.finished', 'alert.escalated'] }).notNull(),
    state: text('state', { enum: ['pending', 'done', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at').notNull(),
    lastError: text('last_error'),
    createdAt: bigint('created_at').notNull(),
    // An escalation step (src/domain/escalation/): "step of steps", and its recipients (user ids) when not the channel's.
    escalationStep: integer('escalation_step'),
    escalationSteps: integer('escalation_steps'),
    escalationToJson: text('escalation_to_json'),
  },
  (t, { index }) => [index('notification_jobs_due_idx').on(t.state, t.nextAttemptAt)],
);

/**
 * Change log behind the live stream (SSE). The autoincrement id is the SSE event id, so
 * `Last-Event-ID` resumes exactly. On PostgreSQL, identity values are handed out when a row is
 * inserted but become visible when its transaction commits, and two transactions can commit in the
 * other order: a reader of `id > last` could see 12, move `last` to 12, and never see 11 when it
 * commits a moment later. Appends are therefore serialised there (one transaction-level advisory
 * lock per batch, `pg_advisory_xact_lock(CHANGE_LOG_LOCK)` in src/db/shared/advisory-locks.ts), so
 * ids commit in order.
 */
export const [alertEvents, pgAlertEvents] = table(
  'alert_events',
  {
    id: autoId('id'),
    channelId: text('channel_id').notNull(),
    alertId: text('alert_id').notNull(),
    type: text('type', { enum: ['alert.created', 'alert.updated', 'alert.deleted'] }).notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index }) => [index('alert_events_created_idx').on(t.createdAt)],
);

/**
 * Alerts per channel, kept by triggers on `alerts` (see the channel_stats
 * migration), so a user who never read a channel gets its unread count without
 * counting a million index entries.
 */
export const [channelStats, pgChannelStats] = table('channel_stats', {
  channelId: text('channel_id')
    .primaryKey()
    .references(() => channels.id, { onDelete: 'cascade' }),
  alertCount: bigint('alert_count').notNull().default(0),
  /** The last `alerts.seq` handed out in the channel (never decreases). */
  seqMax: bigint('seq_max').notNull().default(0),
});
