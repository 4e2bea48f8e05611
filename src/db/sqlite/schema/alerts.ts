import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { channels } from './channels.js';
import { users, workspaces } from './accounts.js';

/**
 * One row per alert. Standard alerts (webhook) and chat messages (Discord) share
 * the table so that pagination, read state and the stream work the same for both.
 *
 * `id` sorts in creation order (see src/lib/ids.ts); `activity_key` starts equal
 * to `id` and is bumped to a fresh key when an alert resurfaces (a finished
 * workflow run), which makes it unread again against every read watermark.
 */
export const alerts = sqliteTable(
  'alerts',
  {
    id: text('id').primaryKey(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['standard', 'chat'] }).notNull(),
    title: text('title').notNull().default(''),
    level: text('level', { enum: ['INFO', 'SUCCESS', 'WARNING', 'ERROR'] }).notNull().default('INFO'),
    emoji: text('emoji').notNull().default(''),
    message: text('message'),
    fieldsJson: text('fields_json'),
    linkUrl: text('link_url'),
    linkText: text('link_text'),
    source: text('source'),
    metadataJson: text('metadata_json'),
    actorJson: text('actor_json'),
    workflowRunId: text('workflow_run_id'),
    workflowState: text('workflow_state', { enum: ['running', 'passed', 'failed'] }),
    workflowStepsJson: text('workflow_steps_json'),
    workflowError: text('workflow_error'),
    /** A sender's de-duplication key (docs/handling-alerts.md): one alert per channel and key, updated in place. */
    dedupKey: text('dedup_key'),
    // chat-connected channels
    externalId: text('external_id'),
    authorJson: text('author_json'),
    replyToJson: text('reply_to_json'),
    activityKey: text('activity_key').notNull(),
    /**
     * Position in the channel's read order: assigned at insert from
     * `channel_stats.seq_max + 1` and moved to a fresh one when the alert
     * resurfaces. Read state and unread counts are arithmetic on it (README
     * "Read state that scales"); 0 only transiently, for an INSERT that did not
     * give one (the insert trigger assigns it then).
     */
    seq: integer('seq').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /**
     * The lifecycle shared by the workspace (docs/handling-alerts.md): not content, so no content write
     * touches it; the `*_by_json` columns hold {id, name} as the person or source was named then.
     */
    status: text('status', { enum: ['open', 'acknowledged', 'resolved'] }).notNull().default('open'),
    acknowledgedAt: integer('acknowledged_at'),
    acknowledgedByJson: text('acknowledged_by_json'),
    resolvedAt: integer('resolved_at'),
    resolvedByJson: text('resolved_by_json'),
    snoozedUntil: integer('snoozed_until'),
    occurrences: integer('occurrences').notNull().default(1),
    /** {id, comment} of the silence that kept the alert quiet, set by silences. */
    silencedByJson: text('silenced_by_json'),
  },
  (t) => [
    index('alerts_channel_id_idx').on(t.channelId, t.id),
    index('alerts_channel_level_id_idx').on(t.channelId, t.level, t.id),
    uniqueIndex('alerts_channel_run_uq')
      .on(t.channelId, t.workflowRunId)
      .where(sql`${t.workflowRunId} IS NOT NULL`),
    uniqueIndex('alerts_channel_dedup_uq')
      .on(t.channelId, t.dedupKey)
      .where(sql`${t.dedupKey} IS NOT NULL`),
    index('alerts_channel_status_id_idx').on(t.channelId, t.status, t.id),
    uniqueIndex('alerts_channel_external_uq')
      .on(t.channelId, t.externalId)
      .where(sql`${t.externalId} IS NOT NULL`),
  ],
);

/** Attachments point at content-addressed files in the media store (key = `<sha256>.<ext>`). */
export const alertAttachments = sqliteTable(
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
    size: integer('size').notNull(),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.position] }), index('alert_attachments_media_idx').on(t.mediaKey)],
);

/**
 * Read state is a per-(user, channel) watermark over `alerts.seq` plus
 * per-alert exceptions. An exception only counts while its `seq` equals the
 * alert's, so resurfacing an alert voids it. `gone_above` counts the sequence
 * numbers above the watermark that no longer hold an alert (deleted, or moved
 * by resurfacing), kept by triggers on `alerts`, so that the unread count is
 * `seq_max - watermark_seq - gone_above` plus the exceptions.
 */
export const readMarks = sqliteTable(
  'read_marks',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    watermarkSeq: integer('watermark_seq').notNull().default(0),
    goneAbove: integer('gone_above').notNull().default(0),
    updatedAt: integer('updated_at').notNull(),
  },
  // The channel index serves the triggers that bump gone_above when an alert leaves.
  (t) => [primaryKey({ columns: [t.userId, t.channelId] }), index('read_marks_channel_idx').on(t.channelId, t.watermarkSeq)],
);

export const readExceptions = sqliteTable(
  'read_exceptions',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    seq: integer('seq').notNull().default(0),
    isRead: integer('is_read', { mode: 'boolean' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.alertId] }),
    index('read_exceptions_user_channel_idx').on(t.userId, t.channelId),
    // Deleting an alert cascades here: without an index on alert_id, SQLite scans the
    // whole table once per deleted alert (retention deletes hundreds per batch).
    index('read_exceptions_alert_idx').on(t.alertId),
  ],
);

/** Completed webhook answers kept for Idempotency-Key replays (24 h). */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    status: integer('status').notNull(),
    responseJson: text('response_json').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.key] }), index('idempotency_created_idx').on(t.createdAt)],
);

/** Billable events per workspace and calendar month (UTC, `YYYY-MM`). */
export const usageCounters = sqliteTable(
  'usage_counters',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    month: text('month').notNull(),
    events: integer('events').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.month] })],
);

/**
 * Transactional outbox: written in the same transaction as the alert change
 * that causes it; src/notify delivers it.
 */
export const notificationJobs = sqliteTable(
  'notification_jobs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    alertId: text('alert_id').notNull(),
    channelId: text('channel_id').notNull(),
    kind: text('kind', { enum: ['alert.created', 'alert.resolved', 'workflow.started', 'workflow.finished'] }).notNull(),
    state: text('state', { enum: ['pending', 'done', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('notification_jobs_due_idx').on(t.state, t.nextAttemptAt)],
);

/**
 * Change log behind the live stream (SSE). The autoincrement id is the SSE
 * event id, so `Last-Event-ID` resumes exactly.
 */
export const alertEvents = sqliteTable(
  'alert_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    channelId: text('channel_id').notNull(),
    alertId: text('alert_id').notNull(),
    type: text('type', { enum: ['alert.created', 'alert.updated', 'alert.deleted'] }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('alert_events_created_idx').on(t.createdAt)],
);

/**
 * Alerts per channel, kept by triggers on `alerts` (see the channel_stats
 * migration), so a user who never read a channel gets its unread count without
 * counting a million index entries.
 */
export const channelStats = sqliteTable('channel_stats', {
  channelId: text('channel_id')
    .primaryKey()
    .references(() => channels.id, { onDelete: 'cascade' }),
  alertCount: integer('alert_count').notNull().default(0),
  /** The last `alerts.seq` handed out in the channel (never decreases). */
  seqMax: integer('seq_max').notNull().default(0),
});
