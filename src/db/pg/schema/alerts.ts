// PostgreSQL mirror of src/db/sqlite/schema/alerts.ts (the comments there explain each table). Differences:
// epoch-ms columns are bigint; AUTOINCREMENT ids are identity columns "by default" (an import keeps
// the ids, then moves the sequence past them); channel_stats is kept by triggers written in the
// channel_stats migration of drizzle-pg/ (and seq / read_marks.gone_above by those of the unread_sequence one). The search
// migration (drizzle-pg/0005_search.sql, custom SQL) adds two columns to `alerts` that are left out
// here on purpose, as SQLite's FTS5 table is left out of src/db/sqlite/schema: `search_key` (identity) and
// `search_vector` (stored generated tsvector, GIN-indexed). No application code writes them, export
// and import leave them out, and the schema parity test compares only what both engines share.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, uniqueIndex } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { channels } from './channels.js';
import { users, workspaces } from './accounts.js';

export const alerts = pgTable(
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
    externalId: text('external_id'),
    authorJson: text('author_json'),
    replyToJson: text('reply_to_json'),
    activityKey: text('activity_key').notNull(),
    /** Position in the channel's read order (docs/read-api.md "Read state"); 0 only until the insert trigger assigns it. */
    seq: bigint('seq', { mode: 'number' }).notNull().default(0),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
    /**
     * The lifecycle shared by the workspace (docs/handling-alerts.md): not content, so no content write
     * touches it; the `*_by_json` columns hold {id, name} as the person or source was named then.
     */
    status: text('status', { enum: ['open', 'acknowledged', 'resolved'] }).notNull().default('open'),
    acknowledgedAt: bigint('acknowledged_at', { mode: 'number' }),
    acknowledgedByJson: text('acknowledged_by_json'),
    resolvedAt: bigint('resolved_at', { mode: 'number' }),
    resolvedByJson: text('resolved_by_json'),
    snoozedUntil: bigint('snoozed_until', { mode: 'number' }),
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

export const alertAttachments = pgTable(
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
    size: bigint('size', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.position] }), index('alert_attachments_media_idx').on(t.mediaKey)],
);

export const readMarks = pgTable(
  'read_marks',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    watermarkSeq: bigint('watermark_seq', { mode: 'number' }).notNull().default(0),
    goneAbove: bigint('gone_above', { mode: 'number' }).notNull().default(0),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  // The channel index serves the triggers that bump gone_above when an alert leaves.
  (t) => [primaryKey({ columns: [t.userId, t.channelId] }), index('read_marks_channel_idx').on(t.channelId, t.watermarkSeq)],
);

export const readExceptions = pgTable(
  'read_exceptions',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull().default(0),
    isRead: boolean('is_read').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.alertId] }),
    index('read_exceptions_user_channel_idx').on(t.userId, t.channelId),
    index('read_exceptions_alert_idx').on(t.alertId),
  ],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    status: integer('status').notNull(),
    responseJson: text('response_json').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.key] }), index('idempotency_created_idx').on(t.createdAt)],
);

export const usageCounters = pgTable(
  'usage_counters',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    month: text('month').notNull(),
    events: bigint('events', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.month] })],
);

export const notificationJobs = pgTable(
  'notification_jobs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    alertId: text('alert_id').notNull(),
    channelId: text('channel_id').notNull(),
    kind: text('kind', { enum: ['alert.created', 'alert.resolved', 'workflow.started', 'workflow.finished'] }).notNull(),
    state: text('state', { enum: ['pending', 'done', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    lastError: text('last_error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('notification_jobs_due_idx').on(t.state, t.nextAttemptAt)],
);

/**
 * Change log behind the live stream. On PostgreSQL, identity values are handed out when a row is
 * inserted but become visible when its transaction commits, and two transactions can commit in the
 * other order: a reader of `id > last` could see 12, move `last` to 12, and never see 11 when it
 * commits a moment later. Appends to this table must therefore be serialised (one
 * transaction-level advisory lock per batch, taken before the insert and released at commit:
 * `pg_advisory_xact_lock(CHANGE_LOG_LOCK)` in src/db/shared/advisory-locks.ts), so ids commit in order.
 */
export const alertEvents = pgTable(
  'alert_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    channelId: text('channel_id').notNull(),
    alertId: text('alert_id').notNull(),
    type: text('type', { enum: ['alert.created', 'alert.updated', 'alert.deleted'] }).notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('alert_events_created_idx').on(t.createdAt)],
);

export const channelStats = pgTable('channel_stats', {
  channelId: text('channel_id')
    .primaryKey()
    .references(() => channels.id, { onDelete: 'cascade' }),
  alertCount: bigint('alert_count', { mode: 'number' }).notNull().default(0),
  /** The last `alerts.seq` handed out in the channel (never decreases). */
  seqMax: bigint('seq_max', { mode: 'number' }).notNull().default(0),
});
