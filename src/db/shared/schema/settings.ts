import { bigint, text, table } from './define.js';
import { users } from './accounts.js';

/**
 * How one person likes the dashboard, whatever the device: the feed's density today. No row means
 * the defaults (src/domain/user-settings.ts); a row goes with its user.
 */
export const [userSettings, pgUserSettings] = table('user_settings', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  feedDensity: text('feed_density', { enum: ['cards', 'compact'] })
    .notNull()
    .default('cards'),
  updatedAt: bigint('updated_at').notNull(),
});
