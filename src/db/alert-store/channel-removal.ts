import type { ChannelRemoval } from '../../domain/alert-reports.js';
import type { StoreWriteContext } from './write-context.js';

/**
 * Channel deletion, here because it deletes alerts: the channel row goes and
 * its alerts, attachment rows, read state and idempotency answers follow by
 * ON DELETE CASCADE, in one unit of the group commit.
 */
export class SqliteChannelRemoval implements ChannelRemoval {
  private readonly s;

  constructor(private readonly w: StoreWriteContext) {
    const { sqlite } = w;
    this.s = {
      mediaOfChannel: sqlite
        .prepare<[string], string>('SELECT DISTINCT at.media_key FROM alert_attachments at JOIN alerts al ON al.id = at.alert_id WHERE al.channel_id = ?')
        .pluck(),
      deleteChannel: sqlite.prepare<[string]>('DELETE FROM channels WHERE id = ?'),
    };
  }

  deleteChannelWithAlerts(channelId: string): Promise<string[]> {
    // The unit may run twice (see WriteBatcher): it only reads and deletes rows, so a second run answers the same keys.
    return this.w.batcher.run(() => {
      const keys = this.s.mediaOfChannel.all(channelId);
      this.s.deleteChannel.run(channelId);
      return keys;
    });
  }
}
