/**
 * The media_orphans rows: which unreferenced files wait for deletion, and since when
 * (src/db/media-orphan-rows.ts on SQLite, src/db/pg/media-orphan-rows.ts on PostgreSQL), read and
 * written by the orphan sweep (src/ops/media-orphans.ts).
 */
export interface MediaOrphanRows {
  /** Lists the keys as orphaned at `now`; the latest release wins (a new grace period). */
  list(keys: readonly string[], now: number): Promise<void>;
  /** Keys orphaned at or before `cutoff`, oldest first, at most `limit`. */
  due(cutoff: number, limit: number): Promise<string[]>;
  forget(keys: readonly string[]): Promise<void>;
  isListed(key: string): Promise<boolean>;
  /**
   * An upload is about to link `key`'s file into place: a listed key starts a new grace period, so
   * no sweep deletes it under that upload. PostgreSQL: under the key's advisory lock, so the pin
   * comes either before a sweep's check-and-unlink (which then finds the key not due) or after it
   * (and the upload's link writes the file again). SQLite: nothing to do (one process: the media
   * store's in-memory pin is what the sweep sees).
   */
  pin(key: string, now: number): Promise<void>;
  /**
   * The sweep's step for one key, while no upload on any node can pin it (PostgreSQL: the key's
   * advisory lock; SQLite: one process). Runs `decide` only if the key is still listed at or before
   * `cutoff`; `decide` unlinks the file if it must go and answers whether the key is settled, and a
   * settled key is forgotten under the same lock. Answers whether it was settled.
   */
  settleDue(key: string, cutoff: number, decide: () => boolean): Promise<boolean>;
}
