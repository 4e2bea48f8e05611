import type Database from 'better-sqlite3';
import type { BatchTail } from '../write-batcher.js';

interface ChannelCount {
  id: string;
  /** seq_max when the batch first touched the channel. */
  base: number;
  /** The last number handed out in this batch (base when none). */
  last: number;
  /** Alerts inserted in this batch (a resurfaced alert takes a number but is not a new alert). */
  added: number;
}

/**
 * The channel counters (channel_stats.alert_count and seq_max), added up per
 * group commit instead of by a trigger upsert per inserted row (migration
 * 0012). The store's writers take each alert's read-order number here
 * (`take`) and the batch writes one UPDATE per channel inside the same
 * transaction, before COMMIT. While it holds numbers, the transaction holds
 * the row of channel_tally_open, so the insert trigger stands aside for this
 * transaction only; it is deleted again before COMMIT.
 *
 * Counts stay exact as the usage tally's do: a unit that fails under its
 * savepoint gives its numbers back (`rollbackTo`), an abandoned transaction
 * forgets everything (`start`), and nothing is written unless the batch
 * commits. Deletes in the batch are still counted by their trigger (a -1 that
 * adds up with the tally's +n). A unit that reads a counter inside the batch
 * adds `pending` (retention does).
 */
export class ChannelTally implements BatchTail {
  private readonly channels = new Map<string, ChannelCount>();
  /** Each number handed out in this transaction, in order (for rollbackTo): its channel, and whether it counted a new alert. */
  private readonly taken: { c: ChannelCount; added: boolean }[] = [];
  /** Whether this transaction holds the marker row; `openedAt` is the log length when it was inserted. */
  private open = false;
  private openedAt = 0;
  /** Once set in a transaction, write() deletes the marker (it may exist even after a rollbackTo reset `open`). */
  private mayHoldMarker = false;
  private readonly statements;

  constructor(sqlite: Database.Database) {
    this.statements = {
      seqMax: sqlite.prepare<[string], number>('SELECT seq_max FROM channel_stats WHERE channel_id = ?').pluck(),
      // A channel's first alert ever: its row exists before any delete in the batch could miss it.
      createStats: sqlite.prepare<[string]>('INSERT INTO channel_stats (channel_id, alert_count, seq_max) VALUES (?, 0, 0) ON CONFLICT DO NOTHING'),
      add: sqlite.prepare<[number, number, string]>(
        'UPDATE channel_stats SET alert_count = alert_count + ?, seq_max = max(seq_max, ?) WHERE channel_id = ?',
      ),
      // Only when the row went away (its creation rolled back with a failed unit); a channel deleted in the batch gets none.
      insertStats: sqlite.prepare<[string, number, number, string]>(
        'INSERT INTO channel_stats (channel_id, alert_count, seq_max) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?)',
      ),
      openMarker: sqlite.prepare('INSERT INTO channel_tally_open (id) VALUES (1) ON CONFLICT DO NOTHING'),
      closeMarker: sqlite.prepare('DELETE FROM channel_tally_open'),
    };
  }

  /**
   * Inside a unit: the channel's next read-order number, for an inserted alert
   * (`added`, counted in alert_count) or a resurfaced one (a number only).
   */
  take(channelId: string, added: boolean): number {
    if (!this.open) {
      this.statements.openMarker.run();
      this.open = true;
      this.mayHoldMarker = true;
      this.openedAt = this.taken.length;
    }
    let c = this.channels.get(channelId);
    if (!c) {
      let base = this.statements.seqMax.get(channelId);
      if (base === undefined) {
        this.statements.createStats.run(channelId);
        base = 0;
      }
      c = { id: channelId, base, last: base, added: 0 };
      this.channels.set(channelId, c);
    }
    c.last++;
    if (added) c.added++;
    this.taken.push({ c, added });
    return c.last;
  }

  /** Inside a unit: the last number taken was not used (its INSERT stored nothing). */
  giveBack(): void {
    this.pop();
  }

  /** Alerts inserted into the channel in this transaction and not yet in channel_stats. */
  pending(channelId: string): number {
    return this.channels.get(channelId)?.added ?? 0;
  }

  start(): void {
    this.channels.clear();
    this.taken.length = 0;
    this.open = false;
    this.mayHoldMarker = false;
  }

  checkpoint(): number {
    return this.taken.length;
  }

  rollbackTo(mark: number): void {
    while (this.taken.length > mark) this.pop();
    // The unit that inserted the marker was rolled back with it; take() inserts it again if needed.
    if (this.open && mark <= this.openedAt) this.open = false;
  }

  write(): void {
    for (const c of this.channels.values()) {
      if (c.last === c.base) continue;
      if (this.statements.add.run(c.added, c.last, c.id).changes === 0) this.statements.insertStats.run(c.id, c.added, c.last, c.id);
    }
    if (this.mayHoldMarker) this.statements.closeMarker.run();
    this.start();
  }

  private pop(): void {
    const t = this.taken.pop();
    if (!t) return;
    t.c.last--;
    if (t.added) t.c.added--;
  }
}
