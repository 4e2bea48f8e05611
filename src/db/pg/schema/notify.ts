// PostgreSQL mirror of src/db/sqlite/schema/notify.ts.
import { bigint, index, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { users } from './accounts.js';
import { channels } from './channels.js';

export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    level: text('level', { enum: ['all', 'important', 'none'] }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.channelId] })],
);

export const notificationDeliveries = pgTable(
  'notification_deliveries',
  {
    jobId: bigint('job_id', { mode: 'number' }).notNull(),
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    alertId: text('alert_id').notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'folded', 'skipped', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    lastError: text('last_error'),
    messageId: text('message_id'),
    digestId: bigint('digest_id', { mode: 'number' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.userId] }),
    index('notification_deliveries_due_idx').on(t.state, t.nextAttemptAt),
    index('notification_deliveries_digest_idx').on(t.digestId),
  ],
);

export const notificationFloodWindows = pgTable(
  'notification_flood_windows',
  {
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    windowEnd: bigint('window_end', { mode: 'number' }).notNull(),
    sent: integer('sent').notNull(),
    digestId: bigint('digest_id', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.channelId] })],
);

export const notificationDigests = pgTable(
  'notification_digests',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    windowEnd: bigint('window_end', { mode: 'number' }).notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'skipped', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    lastError: text('last_error'),
    messageId: text('message_id'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('notification_digests_due_idx').on(t.state, t.nextAttemptAt)],
);
