import type pg from 'pg';
import type { MediaOrphanRows } from '../../domain/media-orphan-rows.js';
import { MEDIA_KEY_LOCK_CLASS } from './locks.js';
import { inTransaction } from './transaction.js';

/**
 * The media_orphans rows on PostgreSQL (src/ops/media-orphans.ts). The sweep runs on the leader
 * only (src/lib/singletons.ts); releases come from any node, the latest one winning.
 *
 * The sweep and the uploads of every node meet on the key's advisory lock (`MEDIA_KEY_LOCK_CLASS`,
 * transaction-level, so COMMIT or ROLLBACK releases it on every path): the sweep holds it from
 * "still due?" to the DELETE of the row, its unlink in between; an upload holds it only for the
 * UPDATE that restarts a listed key's grace period, and links its file after the COMMIT, so no
 * connection waits on file I/O but the sweep's one unlink.
 */
const LOCK_KEY = 'SELECT pg_advisory_xact_lock($1, hashtext($2))';

export class PgMediaOrphanRows implements MediaOrphanRows {
  constructor(private readonly pool: pg.Pool) {}

  async list(keys: readonly string[], now: number): Promise<void> {
    if (keys.length === 0) return;
    await this.pool.query(
      `INSERT INTO media_orphans (media_key, orphaned_at) SELECT DISTINCT k, $2::bigint FROM unnest($1::text[]) AS k
       ON CONFLICT (media_key) DO UPDATE SET orphaned_at = excluded.orphaned_at`,
      [keys, now],
    );
  }

  async due(cutoff: number, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ key: string }>('SELECT media_key AS key FROM media_orphans WHERE orphaned_at <= $1 ORDER BY orphaned_at LIMIT $2', [
      cutoff,
      limit,
    ]);
    return rows.map((r) => r.key);
  }

  async forget(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.pool.query('DELETE FROM media_orphans WHERE media_key = ANY($1::text[])', [keys]);
  }

  async isListed(key: string): Promise<boolean> {
    return (await this.pool.query('SELECT 1 FROM media_orphans WHERE media_key = $1', [key])).rowCount === 1;
  }

  async pin(key: string, now: number): Promise<void> {
    // Unlisted (committed state): no sweep is between its check and its COMMIT for this key, since
    // it deletes the row in the transaction that unlinks; a sweep that deleted it has unlinked
    // already, and the caller's link writes the file again. The common case costs one query.
    if (!(await this.isListed(key))) return;
    await inTransaction(this.pool, async (tx) => {
      await tx.query(LOCK_KEY, [MEDIA_KEY_LOCK_CLASS, key]);
      await tx.query('UPDATE media_orphans SET orphaned_at = GREATEST(orphaned_at, $2::bigint) WHERE media_key = $1', [key, now]);
    });
  }

  settleDue(key: string, cutoff: number, decide: () => boolean): Promise<boolean> {
    return inTransaction(this.pool, async (tx) => {
      await tx.query(LOCK_KEY, [MEDIA_KEY_LOCK_CLASS, key]);
      // A statement after the lock: its snapshot sees every pin committed before the lock was granted.
      const due = await tx.query('SELECT 1 FROM media_orphans WHERE media_key = $1 AND orphaned_at <= $2', [key, cutoff]);
      if (due.rowCount !== 1 || !decide()) return false;
      await tx.query('DELETE FROM media_orphans WHERE media_key = $1', [key]);
      return true;
    });
  }
}
