import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './accounts.js';

/** The dashboard feed's remembered status filter, per user (docs/handling-alerts.md): `all`, or a comma-separated list of statuses. */
export const feedPreferences = sqliteTable('feed_preferences', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  statusFilter: text('status_filter').notNull(),
  updatedAt: integer('updated_at').notNull(),
});
