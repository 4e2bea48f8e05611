import type { FeedDensity, UserSettingsRow, UserSettingsRows } from '../../domain/user-settings.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

const GET = statement<{ userId: string }, UserSettingsRow>(`SELECT feed_density AS "feedDensity" FROM user_settings WHERE user_id = :userId`);

const SET_DENSITY = statement<{ userId: string; density: FeedDensity; now: number }>(
  `INSERT INTO user_settings (user_id, feed_density, updated_at) VALUES (:userId, :density, :now)
   ON CONFLICT (user_id) DO UPDATE SET feed_density = excluded.feed_density, updated_at = excluded.updated_at`,
);

/** A person's dashboard settings, on either engine. */
export class SqlUserSettingsRows implements UserSettingsRows {
  constructor(private readonly database: SqlExecutor) {}

  get(userId: string): Promise<UserSettingsRow | undefined> {
    return this.database.get(GET, { userId });
  }

  async setFeedDensity(userId: string, density: FeedDensity, now: number): Promise<void> {
    await this.database.run(SET_DENSITY, { userId, density, now });
  }
}
