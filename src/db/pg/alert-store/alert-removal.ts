import type pg from 'pg';
import type { AlertRemoval } from '../../../domain/alert-store.js';
import { deleteAlerts } from './unit-rows.js';
import { inUnit } from './unit.js';

/**
 * Deleting single alerts on PostgreSQL (the SQLite one: src/db/alert-store/alert-removal.ts): the
 * row, its attachment rows and read exceptions (ON DELETE CASCADE; the delete trigger keeps the
 * channel's counts and every watermark's gone_above), and the stream event, in one transaction.
 */
export class PgAlertRemoval implements AlertRemoval {
  constructor(private readonly pool: pg.Pool) {}

  deleteAlert(alertId: string, now: number) {
    return inUnit(this.pool, async (u) => {
      const { deleted, released } = await deleteAlerts(u, [alertId], {}, now);
      const gone = deleted[0];
      return gone ? { channelId: gone.channelId, released } : null;
    });
  }
}
