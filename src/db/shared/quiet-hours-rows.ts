import type { QuietHours, QuietHoursRows, QuietMinLevel } from '../../domain/quiet-hours.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

const GET = statement<{ userId: string }, QuietHours>(
  `SELECT time_zone AS "timeZone", start_minute AS "startMinute", end_minute AS "endMinute", min_level AS "minLevel" FROM quiet_hours WHERE user_id = :userId`,
);
const SET = statement<{ userId: string; timeZone: string; startMinute: number; endMinute: number; minLevel: QuietMinLevel; now: number }>(
  `INSERT INTO quiet_hours (user_id, time_zone, start_minute, end_minute, min_level, updated_at)
   VALUES (:userId, :timeZone, :startMinute, :endMinute, :minLevel, :now)
   ON CONFLICT (user_id) DO UPDATE SET time_zone = excluded.time_zone, start_minute = excluded.start_minute,
     end_minute = excluded.end_minute, min_level = excluded.min_level, updated_at = excluded.updated_at`,
);
const CLEAR = statement<{ userId: string }>('DELETE FROM quiet_hours WHERE user_id = :userId');

/** A person's quiet hours, on either engine. */
export class SqlQuietHoursRows implements QuietHoursRows {
  constructor(private readonly database: SqlExecutor) {}

  get(userId: string): Promise<QuietHours | undefined> {
    return this.database.get(GET, { userId });
  }

  async set(userId: string, q: QuietHours, now: number): Promise<void> {
    await this.database.run(SET, { userId, ...q, now });
  }

  async clear(userId: string): Promise<void> {
    await this.database.run(CLEAR, { userId });
  }
}
