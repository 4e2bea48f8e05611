import type pg from 'pg';
import type { ChannelRemoval } from '../../../domain/alert-reports.js';
import { inTransaction } from '../transaction.js';

/**
 * Channel deletion on PostgreSQL (the SQLite one: src/db/alert-store/channel-removal.ts): the
 * channel row goes and its alerts, attachment rows, read state and idempotency answers follow by ON
 * DELETE CASCADE, in one transaction, answering the media keys its alerts used.
 *
 * The keys are read under locks, so none leaves with the cascade unreported: the channel row FOR
 * UPDATE makes a new alert (whose foreign key check takes the row FOR KEY SHARE) wait or fail, and
 * the channel's alerts FOR UPDATE make an edit replacing files commit before the read or wait.
 */
export class PgChannelRemoval implements ChannelRemoval {
  constructor(private readonly pool: pg.Pool) {}

  deleteChannelWithAlerts(channelId: string): Promise<string[]> {
    return inTransaction(this.pool, async (tx) => {
      const channel = await tx.query('SELECT 1 FROM channels WHERE id = $1 FOR UPDATE', [channelId]);
      if (channel.rowCount === 0) return [];
      await tx.query('SELECT 1 FROM alerts WHERE channel_id = $1 FOR UPDATE', [channelId]);
      const { rows } = await tx.query<{ key: string }>(
        'SELECT DISTINCT at.media_key AS key FROM alert_attachments at JOIN alerts al ON al.id = at.alert_id WHERE al.channel_id = $1',
        [channelId],
      );
      await tx.query('DELETE FROM channels WHERE id = $1', [channelId]);
      return rows.map((r) => r.key);
    });
  }
}
