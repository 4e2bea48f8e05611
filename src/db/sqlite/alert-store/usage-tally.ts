import { ADD_USAGE_EVENTS } from '../../shared/usage-counters.js';
import type { SqliteExecutor } from '../executor.js';
import type { BatchTail } from '../write-batcher.js';
import { usageMonth } from '../../../lib/iso-time.js';


/**
 * Billable events (usage_counters), added up per group commit: each unit
 * records its event here and the batch writes one upsert per workspace and
 * month inside the same transaction, before COMMIT. The count stays exact: a
 * unit that fails takes its event back (BatchTail), and nothing is written
 * unless the batch commits. Measured in-process: the per-alert upsert cost
 * about 2.5 µs of the store unit's 25.
 */
export class UsageTally implements BatchTail {
  /** Workspace id and month of each event recorded in this transaction, in order. */
  private readonly events: string[] = [];
  private lastMonth = { day: -1, month: '' };

  constructor(private readonly database: SqliteExecutor) {}

  /** Inside a unit: one billable event for the workspace in the month (UTC) of `now`. */
  count(workspaceId: string, now: number): void {
    this.events.push(workspaceId, this.month(now));
  }

  start(): void {
    this.events.length = 0;
  }

  checkpoint(): number {
    return this.events.length;
  }

  rollbackTo(mark: number): void {
    this.events.length = mark;
  }

  write(): void {
    const ev = this.events;
    if (ev.length === 0) return;
    const sums = new Map<string, { workspaceId: string; month: string; events: number }>();
    for (let i = 0; i < ev.length; i += 2) {
      const key = `${ev[i]}\n${ev[i + 1]}`;
      const sum = sums.get(key);
      if (sum) sum.events++;
      else sums.set(key, { workspaceId: ev[i]!, month: ev[i + 1]!, events: 1 });
    }
    for (const sum of sums.values()) this.database.runNow(ADD_USAGE_EVENTS, sum);
    ev.length = 0;
  }

  /** `YYYY-MM`, formatted once per UTC day. */
  private month(now: number): string {
    const day = Math.floor(now / 86_400_000);
    if (day !== this.lastMonth.day) this.lastMonth = { day, month: usageMonth(now) };
    return this.lastMonth.month;
  }
}
