import { performance } from 'node:perf_hooks';
import type { AlertRetention, PrunedBatch, PruneRule } from '../../../domain/alert-store.js';
import type { Step, TransactionSteps } from '../../shared/executor.js';
import { beyondNewestSteps, excessSteps, olderThanSteps } from '../../shared/retention.js';
import { byDialect } from '../../shared/statement.js';
import type { SqliteExecutor } from '../executor.js';
import type { StoreWriteContext } from './write-context.js';

const MEDIA_KEYS = byDialect<{ ids: readonly string[] }, { key: string }>(
  (dialect) => `SELECT DISTINCT media_key AS key FROM alert_attachments WHERE alert_id IN ${dialect.listOf('ids', 'text')}`,
);
const REMOVE = byDialect<{ ids: readonly string[] }>((dialect) => `DELETE FROM alerts WHERE id IN ${dialect.listOf('ids', 'text')}`);

/**
 * Retention deletes on SQLite: the shared selection (src/db/shared/retention.ts) and its deletes
 * in one unit of the group commit, whose single writer needs no re-check of the chosen rows.
 */
export class SqliteAlertRetention implements AlertRetention {
  constructor(
    private readonly writes: StoreWriteContext,
    private readonly database: SqliteExecutor,
  ) {}

  pruneBatch(channelId: string, rule: PruneRule, limit: number, now: number): Promise<PrunedBatch> {
    const { writes, database } = this;
    return writes.batcher.run(() => {
      const started = performance.now();
      const released = new Set<string>();
      const remove = (tx: TransactionSteps, ids: string[]) => removeSteps(tx, writes, channelId, ids, released, now);
      const deleted = database.stepsNow(function* (tx) {
        // The age rule first; the count rule then sees the count those deletes left (the trigger keeps it in this transaction),
        // plus the alerts this batch inserted that its channel tally writes at the end (channel-tally.ts).
        let removed = rule.olderThan === null ? 0 : yield* remove(tx, yield* olderThanSteps(tx, channelId, rule.olderThan, limit));
        if (removed < limit) {
          const excess = yield* excessSteps(tx, channelId, rule, writes.tally.pending(channelId));
          if (excess > 0) removed += yield* remove(tx, yield* beyondNewestSteps(tx, channelId, excess, limit - removed));
        }
        return removed;
      });
      return { deleted, released: [...released], unitMs: performance.now() - started };
    });
  }
}

/** Inside the unit: the alerts go with their attachment rows (cascade), each with the change a deleted Discord message makes, so open streams drop it too. */
function* removeSteps(
  tx: TransactionSteps,
  writes: StoreWriteContext,
  channelId: string,
  ids: string[],
  released: Set<string>,
  now: number,
): Step<number> {
  if (ids.length === 0) return 0;
  for (const row of yield* tx.all(MEDIA_KEYS, { ids })) released.add(row.key);
  for (const id of ids) writes.changes.event(channelId, id, 'alert.deleted', now);
  return yield* tx.run(REMOVE, { ids });
}
