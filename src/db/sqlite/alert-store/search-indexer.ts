import type Database from 'better-sqlite3';

/**
 * Indexes new alerts for search outside the webhook's write transaction.
 *
 * Until migration 0011 an AFTER INSERT trigger indexed each alert inside the
 * group commit: about half of the store's CPU per alert (the view's
 * json_each, tokenising, and FTS5 flushing a segment at every COMMIT).
 * Now `search_index_state.indexed_upto` says which rowids are indexed:
 * every alert with rowid <= indexed_upto is in the index, those above are
 * pending. This class indexes the pending rows in one statement, shortly
 * after a write (a debounced timer) and, synchronously, before any search
 * reads the index, so a search never misses an alert that was committed
 * before it began.
 *
 * Edits and deletes stay on triggers, which must read the old text before it
 * changes: they act only on indexed rows (rowid <= indexed_upto); a pending
 * row is indexed later with its text at that time. An insert that reuses a
 * rowid at or below the mark (SQLite reuses the largest rowid once its row is
 * deleted) is indexed by its trigger at once. See migration 0011.
 */
const RETRY_MS = 1000;

export class SearchIndexer {
  private readonly statements;
  private readonly pass: (limit: number) => boolean;
  private timer: NodeJS.Timeout | undefined;

  /**
   * `passRows`: rowids per background pass, so that a backlog (alerts written
   * by another process, or by a previous run) is indexed in steps that leave
   * the event loop to requests in between.
   */
  constructor(
    private readonly sqlite: Database.Database,
    private readonly delayMs = 50,
    private readonly passRows = 2000,
  ) {
    this.statements = {
      pending: sqlite
        .prepare<[], number>('SELECT (SELECT max(rowid) FROM alerts) > (SELECT indexed_upto FROM search_index_state WHERE id = 1)')
        .pluck(),
      upto: sqlite.prepare<[], number>('SELECT indexed_upto FROM search_index_state WHERE id = 1').pluck(),
      newest: sqlite.prepare<[], number | null>('SELECT max(rowid) FROM alerts').pluck(),
      index: sqlite.prepare<[number, number]>(
        'INSERT INTO alerts_fts (rowid, title, body, actor) SELECT rid, title, body, actor FROM alerts_search_source WHERE rid > ? AND rid <= ?',
      ),
      mark: sqlite.prepare<[number]>('UPDATE search_index_state SET indexed_upto = ? WHERE id = 1'),
    };
    /** One transaction over at most `limit` rowids; true when more are pending. */
    const tx = sqlite.transaction((limit: number) => {
      const from = this.statements.upto.get() ?? 0;
      const newest = this.statements.newest.get() ?? 0;
      if (newest <= from) return false;
      const to = Math.min(newest, from + limit);
      this.statements.index.run(from, to);
      this.statements.mark.run(to);
      return to < newest;
    });
    this.pass = (limit) => tx.immediate(limit);
  }

  /** Indexes every pending alert now. Cheap when nothing is pending: two index look-ups. */
  catchUp(): void {
    if (this.statements.pending.get() !== 1) return;
    while (this.pass(Number.MAX_SAFE_INTEGER));
  }

  /** Indexes pending alerts soon: writes in a burst share one pass; a backlog goes in steps of `passRows`. */
  schedule(delayMs = this.delayMs): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A connection closed by someone who did not stop() the indexer (a script, a test): the next start indexes the rest.
      if (!this.sqlite.open) return;
      try {
        if (this.statements.pending.get() === 1 && this.pass(this.passRows)) this.schedule(0);
      } catch {
        // Disk full, I/O error, a lock held past busy_timeout: nothing was marked indexed, so
        // the rows stay pending and are retried here later (or by the next search, which
        // then answers the storage error like any other write). The write paths report
        // storage health; a timer must never throw.
        this.schedule(RETRY_MS);
      }
    }, delayMs);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
