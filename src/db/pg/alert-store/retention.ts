import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { AlertRetention, PrunedBatch, PruneRule } from '../../../domain/alert-store.js';
import { idTimeBound } from '../../../lib/ids.js';
import { OldestWalk } from '../../alert-store/retention.js';
import { deleteAlerts } from './unit-rows.js';
import type { Unit } from './unit.js';
import { inUnit } from './unit.js';

/** A running workflow run is never pruned, whatever its age or rank. */
const NOT_RUNNING = "(workflow_state IS NULL OR workflow_state <> 'running')";

/**
 * Retention deletes on PostgreSQL, the selection of src/db/alert-store/retention.ts: both rules
 * take a prefix of the channel's alerts in id order (ids start with their creation time), an index
 * range on (channel_id, id) from the oldest end, running runs stepped over. One batch is one
 * transaction; the chosen rows are locked and checked again before they go (another node may have
 * deleted one, or a run may have started meanwhile), so only rows really deleted get a change.
 *
 * Unread counts stay exact without bookkeeping here: the delete trigger keeps
 * channel_stats.alert_count and each watermark's gone_above (drizzle-pg/0003_unread_sequence.sql),
 * and read exceptions cascade with their alert.
 */
export class PgAlertRetention implements AlertRetention {
  constructor(private readonly pool: pg.Pool) {}

  async pruneBatch(channelId: string, rule: PruneRule, limit: number, now: number): Promise<PrunedBatch> {
    const started = performance.now();
    const result = await inUnit(this.pool, async (u) => {
      const released = new Set<string>();
      const remove = async (ids: string[]) => {
        const gone = await deleteAlerts(u, ids, { channelId, notRunning: true }, now);
        for (const key of gone.released) released.add(key);
        return gone.deleted.length;
      };
      // The age rule first; the count rule then sees the count those deletes left (the trigger keeps it in this transaction).
      let deleted = 0;
      if (rule.olderThan !== null) {
        const { rows } = await u.tx.query<{ id: string }>(
          `SELECT id FROM alerts WHERE channel_id = $1 AND id < $2 AND ${NOT_RUNNING} ORDER BY id LIMIT $3`,
          [channelId, idTimeBound('alt', rule.olderThan), limit],
        );
        deleted += await remove(rows.map((r) => r.id));
      }
      if (rule.keepNewest !== null && deleted < limit) {
        const { rows } = await u.tx.query<{ n: number }>('SELECT alert_count AS n FROM channel_stats WHERE channel_id = $1', [channelId]);
        const excess = (rows[0]?.n ?? 0) - rule.keepNewest;
        if (excess > 0) deleted += await remove(await this.beyond(u, channelId, excess, limit - deleted));
      }
      return { deleted, released: [...released] };
    });
    // The whole unit: BEGIN, selection, deletes and cascades, the change events appended at its end, COMMIT.
    return { ...result, unitMs: performance.now() - started };
  }

  /** Up to `quota` ids among the `prefix` oldest alerts, running runs skipped (they stay and keep counting in the prefix). */
  private async beyond(u: Unit, channelId: string, prefix: number, quota: number): Promise<string[]> {
    const walk = new OldestWalk(prefix, quota);
    while (walk.limit > 0) {
      const { rows } = await u.tx.query<{ id: string; running: boolean }>(
        `SELECT id, workflow_state IS NOT DISTINCT FROM 'running' AS running FROM alerts WHERE channel_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
        [channelId, walk.after, walk.limit],
      );
      walk.take(rows);
    }
    return walk.ids;
  }
}
