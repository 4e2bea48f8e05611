import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { alerts } from './alerts.js';

/**
 * Every lifecycle change of an alert (docs/handling-alerts.md): who, when, from where. `actor_id` is
 * the user's id, null for a sender or an integration; `actor_name` the name shown then, kept when the
 * person is renamed or removed. Deleting the alert deletes its history.
 */
export const alertHistory = sqliteTable(
  'alert_history',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    action: text('action', { enum: ['acknowledged', 'resolved', 'reopened', 'snoozed', 'unsnoozed'] }).notNull(),
    actorId: text('actor_id'),
    actorName: text('actor_name').notNull(),
    via: text('via', { enum: ['api', 'dashboard', 'email', 'push', 'cli', 'webhook', 'integration'] }).notNull(),
    snoozedUntil: integer('snoozed_until'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('alert_history_alert_idx').on(t.alertId, t.id)],
);

/** E-mail and push action links used (src/domain/alert-action-links.ts): one row per link, kept until it expires, so a link acts once. */
export const alertActionUses = sqliteTable(
  'alert_action_uses',
  {
    nonce: text('nonce').primaryKey(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at').notNull(),
  },
  (t) => [index('alert_action_uses_expires_idx').on(t.expiresAt)],
);
