import type { PruneRule } from '../../domain/alert-store.js';
import { idTimeBound } from '../../lib/ids.js';
import type { Step, TransactionSteps } from './executor.js';
import { statement } from './statement.js';

/**
 * Retention's selection, the same on both engines. Both rules select a prefix of the channel's
 * alerts in id order (every alert id is `alt_` + its creation time + a tail, webhook and Discord
 * alike: see src/lib/ids.ts), so each batch is an index range on (channel_id, id) from the oldest
 * end and never a scan of the channel. Running runs inside the prefix are stepped over (a row
 * lookup each): cheap while stuck runs are few, which they are. How the chosen rows are deleted is
 * each engine's (the group commit's unit on SQLite; locked and checked again on PostgreSQL).
 *
 * Unread counts stay exact without any bookkeeping: the delete trigger keeps
 * channel_stats.alert_count and each watermark's gone_above, and read exceptions cascade with
 * their alert (indexed on alert_id, so the cascade is a lookup, not a table scan).
 */

/** A running workflow run is never pruned, whatever its age or rank. */
const OLDER = statement<{ channelId: string; before: string; limit: number }, { id: string }>(
  `SELECT id FROM alerts WHERE channel_id = :channelId AND id < :before AND (workflow_state IS NULL OR workflow_state <> 'running')
   ORDER BY id LIMIT :limit`,
);
const ALERT_COUNT = statement<{ channelId: string }, { count: number }>('SELECT alert_count AS count FROM channel_stats WHERE channel_id = :channelId');
// The alerts beyond the newest N are the oldest (count - N). Walked from the oldest end in small
// keyset steps: an OFFSET or a LIMIT of (count - N) in a subquery reads that whole prefix, 50k rows on a first pass.
const OLDEST = statement<{ channelId: string; after: string; limit: number }, { id: string; running: number }>(
  `SELECT id, CASE WHEN workflow_state = 'running' THEN 1 ELSE 0 END AS running FROM alerts
   WHERE channel_id = :channelId AND id > :after ORDER BY id LIMIT :limit`,
);

/** The age rule's batch: up to `limit` ids of alerts created before `olderThan` ms, oldest first, running runs skipped. */
export function* olderThanSteps(tx: TransactionSteps, channelId: string, olderThan: number, limit: number): Step<string[]> {
  const rows = yield* tx.all(OLDER, { channelId, before: idTimeBound('alt', olderThan), limit });
  return rows.map((row) => row.id);
}

/** How many alerts the count rule would remove (the channel's count as this transaction sees it, plus `pending` not yet counted), or 0. */
export function* excessSteps(tx: TransactionSteps, channelId: string, rule: PruneRule, pending = 0): Step<number> {
  if (rule.keepNewest === null) return 0;
  const count = (yield* tx.value(ALERT_COUNT, { channelId })) ?? 0;
  return Math.max(0, count + pending - rule.keepNewest);
}

/** Up to `quota` ids among the `prefix` oldest alerts, running runs skipped (they stay and keep counting in the prefix). */
export function* beyondNewestSteps(tx: TransactionSteps, channelId: string, prefix: number, quota: number): Step<string[]> {
  const walk = new OldestWalk(prefix, quota);
  while (walk.limit > 0) walk.take(yield* tx.all(OLDEST, { channelId, after: walk.after, limit: walk.limit }));
  return walk.ids;
}

/**
 * The keyset walk over a channel's oldest alerts that the count rule takes: up to `quota` ids among
 * the `prefix` oldest, running runs skipped (they stay, and keep counting in the prefix). Ask for
 * `limit` rows after `after`, hand them to `take`, until `limit` is 0.
 */
class OldestWalk {
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

  take(rows: readonly { id: string; running: number }[]): void {
    if (rows.length === 0) this.#done = true;
    for (const row of rows) {
      if (!row.running) this.ids.push(row.id);
      this.after = row.id;
    }
    this.prefix -= rows.length;
  }
}
