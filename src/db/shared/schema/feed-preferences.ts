import { bigint, text, table } from './define.js';
import { users } from './accounts.js';

/** The dashboard feed's remembered status filter, per user (docs/handling-alerts.md): `all`, or a comma-separated list of statuses. */
export const [feedPreferences, pgFeedPreferences] = table('feed_preferences', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  statusFilter: text('status_filter').notNull(),
  updatedAt: bigint('updated_at').notNull(),
});
