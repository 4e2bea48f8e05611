import { performance } from 'node:perf_hooks';
import type { AlertRetention, PrunedBatch, PruneRule } from '../../domain/alert-store.js';
import { idTimeBound } from '../../lib/ids.js';
import type { StoreWriteContext } from './write-context.js';

/** A running workflow run is never pruned, whatever its age or rank. */
const NOT_RUNNING = "(workflow_state IS NULL OR workflow_state <> 'running')";

/**
 * Retention deletes. Both rules select a prefix of the channel's alerts in id
 * order (every alert id is `alt_` + its creation time + a tail, webhook and
 * Discord alike: see src/lib/ids.ts), so each batch is an index range on
 * (channel_id, id) from the oldest end and never a scan of the channel. Running
 * runs inside the prefix are stepped over by each batch (a row lookup each):
 * cheap while stuck runs are few, which they are.
 *
 * Unread counts stay exact without any bookkeeping here: the delete trigger
 * keeps channel_stats.alert_count and each watermark's gone_above (migration
 * 0011, src/db/alert-store/reads.ts), and read exceptions cascade with their
 * alert (indexed on alert_id, so the cascade is a lookup, not a table scan).
 */
export class SqliteAlertRetention implements AlertRetention {
  private readonly s;

  constructor(private readonly w: StoreWriteContext) {
    const { sqlite } = w;
    this.s = {
      older: sqlite
        .prepare<[string, string, number], string>(
          `SELECT id FROM alerts WHERE channel_id = ? AND id < ? AND ${NOT_RUNNING} ORDER BY id LIMIT ?`,
        )
        .pluck(),
      count: sqlite.prepare<[string], number>('SELECT alert_count FROM channel_stats WHERE channel_id = ?').pluck(),
      // The alerts beyond the newest N are the oldest (count - N). Walked from the
      // oldest end in small keyset steps (see beyond()): an OFFSET or a LIMIT of
      // (count - N) in a subquery reads that whole prefix, 50k rows on a first pass.
      oldest: sqlite.prepare<[string, string, number], { id: string; running: number }>(
        `SELECT id, workflow_state IS 'running' AS running FROM alerts WHERE channel_id = ? AND id > ? ORDER BY id LIMIT ?`,
      ),
      keys: sqlite
        .prepare<[string], string>('SELECT DISTINCT media_key FROM alert_attachments WHERE alert_id IN (SELECT value FROM json_each(?))')
        .pluck(),
      remove: sqlite.prepare<[string]>('DELETE FROM alerts WHERE id IN (SELECT value FROM json_each(?))'),
    };
  }

  pruneBatch(channelId: string, rule: PruneRule, limit: number, now: number): Promise<PrunedBatch> {
    return this.w.batcher.run(() => {
      const started = performance.now();
      // The age rule first; the count rule then sees the count those deletes left (the trigger keeps it in this transaction),
      // plus the alerts this batch inserted that its channel tally writes at the end (channel-tally.ts).
      const ids = rule.olderThan === null ? [] : this.s.older.all(channelId, idTimeBound('alt', rule.olderThan), limit);
      const released = new Set<string>();
      let deleted = this.remove(channelId, ids, released, now);
      if (rule.keepNewest !== null && deleted < limit) {
        const excess = (this.s.count.get(channelId) ?? 0) + this.w.tally.pending(channelId) - rule.keepNewest;
        if (excess > 0) deleted += this.remove(channelId, this.beyond(channelId, excess, limit - deleted), released, now);
      }
      return { deleted, released: [...released], unitMs: performance.now() - started };
    });
  }

  /** Up to `quota` ids among the `prefix` oldest alerts, running runs skipped (they stay and keep counting in the prefix). */
  private beyond(channelId: string, prefix: number, quota: number): string[] {
    const walk = new OldestWalk(prefix, quota);
    while (walk.limit > 0) walk.take(this.s.oldest.all(channelId, walk.after, walk.limit));
    return walk.ids;
  }

  /** Inside the unit. */
  private remove(channelId: string, ids: string[], released: Set<string>, now: number): number {
    if (ids.length === 0) return 0;
    const list = JSON.stringify(ids);
    for (const key of this.s.keys.all(list)) released.add(key);
    // The same change a deleted Discord message makes, so open streams drop the alert too.
    for (const id of ids) this.w.changes.event(channelId, id, 'alert.deleted', now);
    return this.s.remove.run(list).changes;
  }
}

/**
 * The keyset walk over a channel's oldest alerts that retention's count rule takes, for both
 * engines: up to `quota` ids among the `prefix` oldest, running runs skipped (they stay, and keep
 * counting in the prefix). Ask for `limit` rows after `after`, hand them to `take`, until `limit`
 * is 0.
 */
export class OldestWalk {
  readonly ids: string[] = [];
  after = '';
  #done = false;

  constructor(
    private prefix: number,
    private readonly quota: number,
  ) {}

  /** Rows to read next; 0 when the walk is over. */
  get limit(): number {
    return this.#done ? 0 : Math.max(0, Math.min(this.prefix, this.quota - this.ids.length));
  }

  take(rows: readonly { id: string; running: boolean | number }[]): void {
    if (rows.length === 0) this.#done = true;
    for (const r of rows) {
      if (!r.running) this.ids.push(r.id);
      this.after = r.id;
    }
    this.prefix -= rows.length;
  }
}
