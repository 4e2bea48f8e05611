import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { AlertRetention, PrunedBatch, PruneRule } from '../../../domain/alert-store.js';
import { beyondNewestSteps, excessSteps, olderThanSteps } from '../../shared/retention.js';
import { stepsOn } from '../executor.js';
import { deleteAlerts } from './unit-rows.js';
import { inUnit } from './unit.js';

/**
 * Retention deletes on PostgreSQL: the shared selection (src/db/shared/retention.ts) in one
 * transaction per batch, whose chosen rows are locked and checked again before they go (another
 * node may have deleted one, or a run may have started meanwhile), so only rows really deleted get
 * a change.
 */
export class PgAlertRetention implements AlertRetention {
  constructor(private readonly pool: pg.Pool) {}

  async pruneBatch(channelId: string, rule: PruneRule, limit: number, now: number): Promise<PrunedBatch> {
    const started = performance.now();
    const result = await inUnit(this.pool, async (unit) => {
      const released = new Set<string>();
      const remove = async (ids: string[]) => {
        const gone = await deleteAlerts(unit, ids, { channelId, notRunning: true }, now);
        for (const key of gone.released) released.add(key);
        return gone.deleted.length;
      };
      // The age rule first; the count rule then sees the count those deletes left (the trigger keeps it in this transaction).
      const { olderThan } = rule;
      let deleted = olderThan === null ? 0 : await remove(await stepsOn(unit.tx, (tx) => olderThanSteps(tx, channelId, olderThan, limit)));
      if (deleted < limit) {
        const excess = await stepsOn(unit.tx, (tx) => excessSteps(tx, channelId, rule));
        if (excess > 0) deleted += await remove(await stepsOn(unit.tx, (tx) => beyondNewestSteps(tx, channelId, excess, limit - deleted)));
      }
      return { deleted, released: [...released] };
    });
    // The whole unit: BEGIN, selection, deletes and cascades, the change events appended at its end, COMMIT.
    return { ...result, unitMs: performance.now() - started };
  }
}
