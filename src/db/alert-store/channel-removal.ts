import type { ChannelRemoval } from '../../domain/alert-reports.js';
import type { StoreWriteContext } from './write-context.js';

/**
 * Channel deletion, here because it deletes alerts: the channel row goes and
 * its alerts, attachment rows, read state and idempotency answers follow by
 * ON DELETE CASCADE, in one unit of the group commit.
 */
export class SqliteChannelRemoval implements ChannelRemoval {
  /** The distinct media keys a channel's alerts use: released after the commit if nothing else uses them. */
  readonly #mediaOfChannel;
  readonly #deleteChannel;

  constructor(private readonly w: StoreWriteContext) {
    this.#mediaOfChannel = w.sqlite
      .prepare<[string], string>('SELECT DISTINCT at.media_key FROM alert_attachments at JOIN alerts al ON al.id = at.alert_id WHERE al.channel_id = ?')
      .pluck();
    this.#deleteChannel = w.sqlite.prepare<[string]>('DELETE FROM channels WHERE id = ?');
  }

  deleteChannelWithAlerts(channelId: string): Promise<string[]> {
    // The unit may run twice (see WriteBatcher): it only reads and deletes rows, so a second run answers the same keys.
    return this.w.batcher.run(() => {
      const keys = this.#mediaOfChannel.all(channelId);
      this.#deleteChannel.run(channelId);
      return keys;
    });
  }
}
