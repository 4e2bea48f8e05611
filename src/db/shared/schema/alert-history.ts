import { autoId, bigint, text, table } from './define.js';
import { alerts } from './alerts.js';

/**
 * Every lifecycle change of an alert (docs/handling-alerts.md): who, when, from where. `actor_id` is
 * the user's id, null for a sender or an integration; `actor_name` the name shown then, kept when the
 * person is renamed or removed. Deleting the alert deletes its history.
 */
export const [alertHistory, pgAlertHistory] = table(
  'alert_history',
  {
    id: autoId('id'),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    action: text('action', { enum: ['acknowledged', 'resolved', 'reopened', 'snoozed', 'unsnoozed'] }).notNull(),
    actorId: text('actor_id'),
    actorName: text('actor_name').notNull(),
    via: text('via', { enum: ['api', 'dashboard', 'email', 'push', 'cli', 'webhook', 'integration'] }).notNull(),
    snoozedUntil: bigint('snoozed_until'),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index }) => [index('alert_history_alert_idx').on(t.alertId, t.id)],
);

/** E-mail and push action links used (src/domain/alert-action-links.ts): one row per link, kept until it expires, so a link acts once. */
export const [alertActionUses, pgAlertActionUses] = table(
  'alert_action_uses',
  {
    nonce: text('nonce').primaryKey(),
    expiresAt: bigint('expires_at').notNull(),
    usedAt: bigint('used_at').notNull(),
  },
  (t, { index }) => [index('alert_action_uses_expires_idx').on(t.expiresAt)],
);
