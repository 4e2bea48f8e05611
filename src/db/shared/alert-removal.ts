import type { AlertRemoval } from '../../domain/alert-store.js';
import type { ChannelRemoval } from '../../domain/alert-reports.js';
import { perEngine, statement } from './statement.js';
import type { WriteUnits } from './write-units.js';

// PostgreSQL locks what it is about to delete, so the keys read next are the ones that leave with
// the cascade (an edit replacing files commits first or waits); SQLite's one writer needs no lock.
const ALERT_SQL = 'SELECT channel_id AS "channelId" FROM alerts WHERE id = :alertId';
const ALERT = perEngine<{ alertId: string }, { channelId: string }>({ sqlite: ALERT_SQL, pg: `${ALERT_SQL} FOR UPDATE` });
const MEDIA_OF_ALERT = statement<{ alertId: string }, { key: string }>('SELECT DISTINCT media_key AS key FROM alert_attachments WHERE alert_id = :alertId');
const DELETE_ALERT = statement<{ alertId: string }>('DELETE FROM alerts WHERE id = :alertId');

// The channel row FOR UPDATE makes a new alert (whose foreign key check takes it FOR KEY SHARE) wait
// or fail; the channel's alerts FOR UPDATE make an edit replacing files commit before the read or wait.
const CHANNEL_SQL = 'SELECT 1 AS found FROM channels WHERE id = :channelId';
const CHANNEL = perEngine<{ channelId: string }, { found: number }>({ sqlite: CHANNEL_SQL, pg: `${CHANNEL_SQL} FOR UPDATE` });
const LOCK_CHANNEL_ALERTS = perEngine<{ channelId: string }>({ sqlite: null, pg: 'SELECT 1 FROM alerts WHERE channel_id = :channelId FOR UPDATE' });
const MEDIA_OF_CHANNEL = statement<{ channelId: string }, { key: string }>(
  'SELECT DISTINCT at.media_key AS key FROM alert_attachments at JOIN alerts al ON al.id = at.alert_id WHERE al.channel_id = :channelId',
);
const DELETE_CHANNEL = statement<{ channelId: string }>('DELETE FROM channels WHERE id = :channelId');

/**
 * Deleting single alerts, on either engine: the row, its attachment rows and read exceptions (ON
 * DELETE CASCADE; the delete trigger keeps the channel's counts and every watermark's gone_above),
 * and the stream event, in one unit.
 */
export class SqlAlertRemoval implements AlertRemoval {
  constructor(private readonly units: WriteUnits) {}

  deleteAlert(alertId: string, now: number) {
    return this.units.run(function* (tx, effects) {
      const alert = yield* tx.get(ALERT, { alertId });
      if (!alert) return null;
      // Read before the delete: the cascade takes the attachment rows with it.
      const released = (yield* tx.all(MEDIA_OF_ALERT, { alertId })).map((r) => r.key);
      yield* tx.run(DELETE_ALERT, { alertId });
      effects.event(alert.channelId, alertId, 'alert.deleted', now);
      return { channelId: alert.channelId, released };
    });
  }
}

/**
 * Channel deletion, here because it deletes alerts: the channel row goes and its alerts, attachment
 * rows, read state and idempotency answers follow by ON DELETE CASCADE, in one unit, answering the
 * media keys its alerts used (released after the commit if nothing else uses them).
 */
export class SqlChannelRemoval implements ChannelRemoval {
  constructor(private readonly units: WriteUnits) {}

  deleteChannelWithAlerts(channelId: string): Promise<string[]> {
    return this.units.run(function* (tx) {
      if (!(yield* tx.get(CHANNEL, { channelId }))) return [];
      yield* tx.run(LOCK_CHANNEL_ALERTS, { channelId });
      const keys = (yield* tx.all(MEDIA_OF_CHANNEL, { channelId })).map((r) => r.key);
      yield* tx.run(DELETE_CHANNEL, { channelId });
      return keys;
    });
  }
}
