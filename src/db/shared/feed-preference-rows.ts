import type { FeedPreferenceRows } from '../../domain/feed-preferences.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

const STATUS_FILTER = statement<{ userId: string }, { statusFilter: string }>(
  'SELECT status_filter AS "statusFilter" FROM feed_preferences WHERE user_id = :userId',
);
const SET_STATUS_FILTER = statement<{ userId: string; filter: string; now: number }>(
  `INSERT INTO feed_preferences (user_id, status_filter, updated_at) VALUES (:userId, :filter, :now)
   ON CONFLICT (user_id) DO UPDATE SET status_filter = excluded.status_filter, updated_at = excluded.updated_at`,
);

/** The feed's remembered filters, on either engine. */
export class SqlFeedPreferenceRows implements FeedPreferenceRows {
  constructor(private readonly database: SqlExecutor) {}

  async statusFilter(userId: string): Promise<string | undefined> {
    return (await this.database.get(STATUS_FILTER, { userId }))?.statusFilter;
  }

  async setStatusFilter(userId: string, filter: string, now: number): Promise<void> {
    await this.database.run(SET_STATUS_FILTER, { userId, filter, now });
  }
}
