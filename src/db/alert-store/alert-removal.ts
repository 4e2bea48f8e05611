import type Database from 'better-sqlite3';
import type { AlertRemoval } from '../../domain/alert-store.js';
import type { StoreWriteContext } from './write-context.js';

/** Deleting single alerts: the row, its attachment rows and read exceptions (ON DELETE CASCADE), and the stream event, in one unit. */
export class SqliteAlertRemoval implements AlertRemoval {
  private readonly channelOf: Database.Statement<[string], string>;
  private readonly remove: Database.Statement<[string]>;

  constructor(private readonly w: StoreWriteContext) {
    const { sqlite } = w;
    this.channelOf = sqlite.prepare<[string], string>('SELECT channel_id FROM alerts WHERE id = ?').pluck();
    this.remove = sqlite.prepare<[string]>('DELETE FROM alerts WHERE id = ?');
  }

  deleteAlert(alertId: string, now: number) {
    return this.w.batcher.run(() => {
      const channelId = this.channelOf.get(alertId);
      if (channelId === undefined) return null;
      // Read before the delete: the cascade takes the attachment rows with it.
      const released = this.w.attachments.keys(alertId);
      this.remove.run(alertId);
      this.w.changes.event(channelId, alertId, 'alert.deleted', now);
      return { channelId, released };
    });
  }
}
