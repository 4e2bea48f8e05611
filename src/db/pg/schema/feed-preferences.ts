// PostgreSQL mirror of src/db/sqlite/schema/feed-preferences.ts (the comment there explains the table).
import { bigint, pgTable } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { users } from './accounts.js';

export const feedPreferences = pgTable('feed_preferences', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  statusFilter: text('status_filter').notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});
