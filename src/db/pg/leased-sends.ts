import type pg from 'pg';

/** The tables whose rows a worker marks `sending` while it sends them. */
export type SendTable = 'notification_deliveries' | 'notification_digests' | 'push_deliveries';

/**
 * A row in `sending` is leased to the node that claimed it: the `updated_at` a claim sets is its
 * claim time (nothing else writes a `sending` row until its outcome). Recovery after a crash only
 * takes rows claimed more than the lease ago, never one in another live node's conversation
 * with the SMTP server or the push service right now; they are recorded failed, never resent. A
 * send that outlives its lease writes its real outcome over `failed`, which resends nothing either.
 */
export class LeasedSends {
  constructor(
    private readonly pool: pg.Pool,
    private readonly tables: readonly SendTable[],
    readonly leaseMs: number,
  ) {}

  /** Marks the expired `sending` rows failed with `reason`; how many. */
  async recover(reason: string, now: number): Promise<number> {
    let n = 0;
    for (const table of this.tables) {
      const r = await this.pool.query(`UPDATE ${table} SET state = 'failed', last_error = $1, updated_at = $2 WHERE state = 'sending' AND updated_at < $3`, [
        reason,
        now,
        now - this.leaseMs,
      ]);
      n += r.rowCount ?? 0;
    }
    return n;
  }
}
