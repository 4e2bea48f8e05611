import type { BatchObserver } from '../../shared/batch-observer.js';

/** One request's alert waiting for its batch's COMMIT. */
interface Pending<A, R> {
  item: A;
  resolve(value: R): void;
  reject(err: unknown): void;
}

export interface InsertBatcherOptions<A, R> {
  /** Writes the whole batch in one transaction; resolves after its COMMIT with one result per item, in order. */
  writeAll(items: A[]): Promise<R[]>;
  /** Writes one item in a transaction of its own: the replay after a batch failed. */
  writeOne(item: A): Promise<R>;
  /** Items per transaction at most (default 256). */
  maxBatch?: number;
  /** Batches in flight at once (default 2): one can draw its rows while another waits for its COMMIT. */
  concurrency?: number;
}

/**
 * Group commit for PostgreSQL, per node: the alerts of concurrent webhook requests are written
 * together, one transaction and one statement per table for many alerts, where one transaction
 * per alert would pay a commit and half a dozen round trips each (README "Running more than one
 * node": measured in `npm run bench -- cluster`). Nothing waits for a batch to fill: an item
 * submitted while the node is idle is written at the next turn of the event loop (with whatever
 * else arrived in that turn); items submitted while `concurrency` batches are in flight wait for
 * one of them to finish and then go together. Every promise settles only after its batch's
 * COMMIT, so a 201 still means committed.
 *
 * A batch that fails (a constraint one item breaks, a deadlock, a dropped connection) has rolled
 * back as a whole; its items are then written one by one, in order, each in its own transaction,
 * so one bad item fails alone and the others are stored exactly once.
 */
export class InsertBatcher<A, R> {
  private readonly queue: Pending<A, R>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly concurrency: number;
  /** Batches written, and batches replayed item by item (tests and the bench read them). */
  readonly stats = { batches: 0, items: 0, replays: 0 };
  /**
   * Told of every transaction's outcome, as the SQLite group commit tells it (storage health and the
   * group-commit metrics, src/ops/operations.ts): a batch committed, or a transaction whose every
   * write was refused. A batch replayed item by item is told as its items' own transactions.
   */
  observer: BatchObserver | undefined;

  constructor(private readonly opts: InsertBatcherOptions<A, R>) {
    this.maxBatch = opts.maxBatch ?? 256;
    this.concurrency = opts.concurrency ?? 2;
  }

  submit(item: A): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled && this.inFlight < this.concurrency) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.concurrency) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async run(batch: Pending<A, R>[]): Promise<void> {
    this.stats.batches++;
    this.stats.items += batch.length;
    let results: R[];
    try {
      results = await this.opts.writeAll(batch.map((p) => p.item));
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        this.observer?.failed(err, 1);
        return;
      }
      this.stats.replays++;
      for (const p of batch) {
        await this.opts.writeOne(p.item).then(
          (r) => {
            p.resolve(r);
            this.observer?.committed(1);
          },
          (e: unknown) => {
            p.reject(e);
            this.observer?.failed(e, 1);
          },
        );
      }
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]!));
    this.observer?.committed(batch.length);
  }
}
