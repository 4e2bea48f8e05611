// PostgreSQL mirror of src/db/sqlite/schema/alert-history.ts (the comment there explains the table).
import { bigint, index, pgTable } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { alerts } from './alerts.js';

export const alertHistory = pgTable(
  'alert_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    action: text('action', { enum: ['acknowledged', 'resolved', 'reopened', 'snoozed', 'unsnoozed'] }).notNull(),
    actorId: text('actor_id'),
    actorName: text('actor_name').notNull(),
    via: text('via', { enum: ['api', 'dashboard', 'email', 'push', 'cli', 'webhook', 'integration'] }).notNull(),
    snoozedUntil: bigint('snoozed_until', { mode: 'number' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('alert_history_alert_idx').on(t.alertId, t.id)],
);

export const alertActionUses = pgTable(
  'alert_action_uses',
  {
    nonce: text('nonce').primaryKey(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    usedAt: bigint('used_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('alert_action_uses_expires_idx').on(t.expiresAt)],
);
