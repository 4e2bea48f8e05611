// PostgreSQL mirror of src/db/sqlite/schema/settings.ts.
import { bigint, pgTable } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { users } from './accounts.js';

export const userSettings = pgTable('user_settings', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  feedDensity: text('feed_density', { enum: ['cards', 'compact'] })
    .notNull()
    .default('cards'),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});
