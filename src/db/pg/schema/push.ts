// PostgreSQL mirror of src/db/sqlite/schema/push.ts.
import { bigint, index, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { users } from './accounts.js';

export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull().unique(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    device: text('device').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastSuccessAt: bigint('last_success_at', { mode: 'number' }),
    lastError: text('last_error'),
  },
  (t) => [index('push_subscriptions_user_idx').on(t.userId)],
);

export const pushDeliveries = pgTable(
  'push_deliveries',
  {
    jobId: bigint('job_id', { mode: 'number' }).notNull(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => pushSubscriptions.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    alertId: text('alert_id').notNull(),
    kind: text('kind', { enum: ['alert.created', 'alert.resolved', 'workflow.started', 'workflow.finished'] }).notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'skipped', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    lastError: text('last_error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.subscriptionId] }), index('push_deliveries_due_idx').on(t.state, t.nextAttemptAt)],
);

export const pushFloodWindows = pgTable(
  'push_flood_windows',
  {
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    windowEnd: bigint('window_end', { mode: 'number' }).notNull(),
    sent: integer('sent').notNull(),
    folded: integer('folded').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.channelId] })],
);
