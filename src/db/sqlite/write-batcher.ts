import type Database from 'better-sqlite3';
import type { BatchObserver } from '../shared/batch-observer.js';

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  ok?: boolean;
  value?: unknown;
}

/**
 * Work a batch's units leave to the end of their transaction: a counter the
 * units add to is written once per batch, not once per unit (usage-tally.ts).
 * `start` runs when a transaction (or its replay) begins, so an abandoned
 * attempt's additions are forgotten; `checkpoint` and `rollbackTo` bracket a
 * unit that runs alone under its savepoint, so a failed unit's additions go
 * with its rows; `write` runs inside the transaction after the last unit.
 */
export interface BatchTail {
  start(): void;
  checkpoint(): number;
  rollbackTo(mark: number): void;
  write(): void;
}

/** Thrown inside the optimistic pass when one unit failed, so the batch is rolled back and replayed unit by unit. */
class UnitFailed extends Error {}

/**
 * Group commit. Writes queued during one event-loop turn run in ONE SQLite
 * transaction, and every promise settles only after COMMIT: a 201 still means
 * "committed". Measured on these machines (shared/notes/performance.md): a
 * commit per request caps the webhook at ~25 % of bare node:http.
 *
 * One failing unit must roll back alone. A SAVEPOINT per unit gives that, but
 * costs more than the unit's own inserts (~25 µs: SQLite copies every page the
 * unit touches into the statement journal). So a batch first runs optimistically
 * with no savepoints; only when a unit throws is the whole transaction rolled
 * back and the batch replayed with a savepoint around each unit. Units that
 * fail (a finished workflow run, a constraint) are rare, and their batch pays
 * twice.
 *
 * The contract this puts on a unit: its function may run twice, so it must not
 * change anything outside the database that a second run would double (collect
 * results in its return value, or reset what it collects at its start).
 */
export class WriteBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  // Built once: creating a better-sqlite3 transaction wrapper costs ~8 µs, more than a row insert.
  private readonly optimistic: { immediate: (batch: Pending[]) => void };
  private readonly isolated: { immediate: (batch: Pending[]) => void };
  private readonly unit: (fn: () => unknown) => unknown;
  private readonly tails: BatchTail[] = [];
  /** Batches committed, and batches that had to be replayed with savepoints (for tests and the bench). */
  readonly stats = { batches: 0, replays: 0 };
  observer: BatchObserver | undefined;

  constructor(private readonly sqlite: Database.Database) {
    this.optimistic = sqlite.transaction((batch: Pending[]) => {
      for (const t of this.tails) t.start();
      for (const p of batch) {
        try {
          p.value = p.fn();
          p.ok = true;
        } catch (err) {
          p.ok = false;
          p.value = err;
          throw new UnitFailed();
        }
      }
      for (const t of this.tails) t.write();
    });
    this.unit = sqlite.transaction((fn: () => unknown) => fn());
    this.isolated = sqlite.transaction((batch: Pending[]) => {
      for (const t of this.tails) t.start();
      for (const p of batch) {
        const marks = this.tails.map((t) => t.checkpoint());
        try {
          p.value = this.unit(p.fn);
          p.ok = true;
        } catch (err) {
          // Some errors (disk full, I/O, out of memory) make SQLite roll back the
          // whole transaction, not just the savepoint. Going on would run the next
          // units in autocommit, outside the batch: fail the batch instead.
          if (!this.sqlite.inTransaction) throw err;
          this.tails.forEach((t, i) => t.rollbackTo(marks[i]!));
          p.ok = false;
          p.value = err;
        }
      }
      for (const t of this.tails) t.write();
    });
  }

  /** Registers work for the end of every batch's transaction (see BatchTail). */
  addTail(tail: BatchTail): void {
    this.tails.push(tail);
  }

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Runs everything queued now. Safe to call directly (tests, shutdown). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      try {
        this.optimistic.immediate(batch);
      } catch (err) {
        if (!(err instanceof UnitFailed)) throw err;
        this.stats.replays++;
        this.isolated.immediate(batch);
      }
    } catch (err) {
      // BEGIN or COMMIT itself failed (disk full, database locked past busy_timeout): nothing was stored.
      for (const p of batch) p.reject(err);
      this.observer?.failed(err, batch.length);
      return;
    }
    this.stats.batches++;
    for (const p of batch) (p.ok ? p.resolve : p.reject)(p.value);
    this.observer?.committed(batch.length);
  }
}
