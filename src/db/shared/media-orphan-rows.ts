import type { MediaOrphanRows } from '../../domain/media-orphan-rows.js';
import { MEDIA_KEY_LOCK_CLASS } from './advisory-locks.js';
import type { SqlExecutor } from './executor.js';
import { byDialect, perEngine, statement } from './statement.js';

// The latest release wins: a key referenced again and released again starts a new grace period.
// (`WHERE true`: SQLite's parser needs it between an INSERT's SELECT and its ON CONFLICT.)
const LIST = byDialect<{ keys: readonly string[]; now: number }>(
  (dialect) => `INSERT INTO media_orphans (media_key, orphaned_at) SELECT DISTINCT value, CAST(:now AS BIGINT) FROM ${dialect.listOf('keys', 'text')} AS listed WHERE true
   ON CONFLICT (media_key) DO UPDATE SET orphaned_at = excluded.orphaned_at`,
);
const DUE = statement<{ cutoff: number; limit: number }, { key: string }>('SELECT media_key AS key FROM media_orphans WHERE orphaned_at <= :cutoff ORDER BY orphaned_at LIMIT :limit');
const FORGET = byDialect<{ keys: readonly string[] }>((dialect) => `DELETE FROM media_orphans WHERE media_key IN ${dialect.listOf('keys', 'text')}`);
const LISTED = statement<{ key: string }, { listed: number }>('SELECT 1 AS listed FROM media_orphans WHERE media_key = :key');
const STILL_DUE = statement<{ key: string; cutoff: number }, { due: number }>('SELECT 1 AS due FROM media_orphans WHERE media_key = :key AND orphaned_at <= :cutoff');
const FORGET_ONE = statement<{ key: string }>('DELETE FROM media_orphans WHERE media_key = :key');

/**
 * PostgreSQL only: the sweep (on the leader) and the uploads of every node meet on the key's
 * advisory lock (transaction-level, so COMMIT or ROLLBACK releases it on every path). On SQLite one
 * process holds the media store's in-memory pin, which is what its sweep sees: nothing to store.
 */
const KEY_LOCK = perEngine<{ key: string }>({ sqlite: null, pg: `SELECT pg_advisory_xact_lock(${MEDIA_KEY_LOCK_CLASS}, hashtext(:key))` });
const LISTED_FOR_PIN = perEngine<{ key: string }, { listed: number }>({ sqlite: null, pg: 'SELECT 1 AS listed FROM media_orphans WHERE media_key = :key' });
const PIN = perEngine<{ key: string; now: number }>({
  sqlite: null,
  pg: 'UPDATE media_orphans SET orphaned_at = GREATEST(orphaned_at, CAST(:now AS BIGINT)) WHERE media_key = :key',
});

/**
 * The media_orphans rows (src/ops/media-orphans.ts), on either engine. The sweep holds the key's
 * lock from "still due?" to the DELETE of the row, its unlink in between; an upload holds it only
 * for the UPDATE that restarts a listed key's grace period, and links its file after the COMMIT, so
 * no connection waits on file I/O but the sweep's one unlink.
 */
export class SqlMediaOrphanRows implements MediaOrphanRows {
  constructor(private readonly database: SqlExecutor) {}

  async list(keys: readonly string[], now: number): Promise<void> {
    if (keys.length > 0) await this.database.run(LIST, { keys, now });
  }

  async due(cutoff: number, limit: number): Promise<string[]> {
    return (await this.database.all(DUE, { cutoff, limit })).map((r) => r.key);
  }

  async forget(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.database.run(FORGET, { keys });
  }

  async isListed(key: string): Promise<boolean> {
    return (await this.database.get(LISTED, { key })) !== undefined;
  }

  async pin(key: string, now: number): Promise<void> {
    // Unlisted (committed state): no sweep is between its check and its COMMIT for this key, since
    // it deletes the row in the transaction that unlinks; a sweep that deleted it has unlinked
    // already, and the caller's link writes the file again. The common case costs one query.
    if ((await this.database.get(LISTED_FOR_PIN, { key })) === undefined) return;
    await this.database.transaction(function* (tx) {
      yield* tx.run(KEY_LOCK, { key });
      yield* tx.run(PIN, { key, now });
    });
  }

  /** The check, `decide` (its unlink) and the forget as one transaction: synchronous on SQLite, under the key's lock on PostgreSQL. */
  settleDue(key: string, cutoff: number, decide: () => boolean): Promise<boolean> {
    return this.database.transaction(function* (tx) {
      yield* tx.run(KEY_LOCK, { key });
      // A statement after the lock: its snapshot sees every pin committed before the lock was granted.
      if ((yield* tx.get(STILL_DUE, { key, cutoff })) === undefined || !decide()) return false;
      yield* tx.run(FORGET_ONE, { key });
      return true;
    });
  }
}
