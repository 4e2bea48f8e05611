import fsp from 'node:fs/promises';
import type Database from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';
import { MEDIA_KEY_RE, type MediaStore } from '../media/store.js';

/**
 * The grace period between "no alert references this media file any more" and
 * deleting it. Media are content-addressed and never rewritten, so copying the
 * database and then rsyncing media/ is a complete backup, provided no file the
 * copy references is deleted between the two steps: files are only deleted
 * once they have been unreferenced for `graceMs`.
 *
 * It runs SQL only against its own media_orphans table; whether an alert still
 * uses a key is asked of the alert store (isMediaReferenced).
 */
export class MediaOrphans {
  readonly #upsert: Database.Statement<[string, number]>;
  readonly #due: Database.Statement<[number, number], { key: string }>;
  readonly #forget: Database.Statement<[string]>;
  readonly #listed: Database.Statement<[string]>;

  constructor(
    sqlite: Database.Database,
    private readonly media: MediaStore,
    private readonly clock: Clock,
    private readonly graceMs: number,
    private readonly isReferenced: (key: string) => boolean,
  ) {
    // The latest release wins: a key referenced again and released again starts a new grace period.
    this.#upsert = sqlite.prepare(
      `INSERT INTO media_orphans (media_key, orphaned_at) VALUES (?, ?)
       ON CONFLICT (media_key) DO UPDATE SET orphaned_at = excluded.orphaned_at`,
    );
    this.#due = sqlite.prepare('SELECT media_key AS key FROM media_orphans WHERE orphaned_at <= ? ORDER BY orphaned_at LIMIT ?');
    this.#forget = sqlite.prepare('DELETE FROM media_orphans WHERE media_key = ?');
    this.#listed = sqlite.prepare('SELECT 1 FROM media_orphans WHERE media_key = ?');
  }

  /**
   * Lists files on disk that nothing references and nothing has listed yet,
   * starting their grace period now. Such strays come from a crash between the
   * commit that dropped a reference and its release, or from restoring an older
   * database. Run once at start; returns how many were found.
   */
  async adoptStrays(): Promise<number> {
    const now = this.clock.now();
    let found = 0;
    for (const key of await fsp.readdir(this.media.dir)) {
      if (!MEDIA_KEY_RE.test(key) || this.media.isPinned(key) || this.isReferenced(key) || this.#listed.get(key)) continue;
      this.#upsert.run(key, now);
      found++;
    }
    return found;
  }

  /**
   * Call after the commit that dropped the references. With a grace of 0 the
   * files go at once (the behaviour before the grace period existed).
   */
  release(keys: string[]): void {
    if (this.graceMs === 0) {
      this.media.removeUnreferenced(keys, this.isReferenced);
      return;
    }
    const now = this.clock.now();
    for (const key of keys) if (MEDIA_KEY_RE.test(key) && !this.isReferenced(key)) this.#upsert.run(key, now);
  }

  /**
   * Deletes the files unreferenced for longer than the grace period; a key an
   * alert uses again is only forgotten. Works in batches so one run never holds
   * the event loop for long. Returns the number of files deleted.
   */
  sweep(batchSize = 500): number {
    const cutoff = this.clock.now() - this.graceMs;
    let deleted = 0;
    for (;;) {
      const keys = this.#due.all(cutoff, batchSize).map((r) => r.key);
      if (keys.length === 0) return deleted;
      // removeUnreferenced re-checks references and in-flight pins key by key, in one tick.
      deleted += this.media.removeUnreferenced(keys, this.isReferenced).length;
      // A key an in-flight upload holds stays listed: if that upload fails, nothing else would delete the file.
      const settled = keys.filter((key) => !this.media.isPinned(key));
      for (const key of settled) this.#forget.run(key);
      if (keys.length < batchSize || settled.length === 0) return deleted;
    }
  }
}
