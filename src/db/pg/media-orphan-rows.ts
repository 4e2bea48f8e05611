import type pg from 'pg';
import type { MediaOrphanRows } from '../../ops/media-orphans.js';

/**
 * The media_orphans rows on PostgreSQL (src/ops/media-orphans.ts). The sweep runs on the leader
 * only (src/lib/singletons.ts); releases come from any node, the latest one winning.
 */
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
}
