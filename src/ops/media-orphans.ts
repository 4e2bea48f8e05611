import fsp from 'node:fs/promises';
import type { Clock } from '../lib/clock.js';
import type { MediaOrphanRows } from '../domain/media-orphan-rows.js';
import type { ReferenceCheck } from '../domain/media.js';
import { MEDIA_KEY_RE, type MediaStore } from '../media/store.js';

/**
 * The grace period between "no alert references this media file any more" and
 * deleting it. Media are content-addressed and never rewritten, so copying the
 * database and then rsyncing media/ is a complete backup, provided no file the
 * copy references is deleted between the two steps: files are only deleted
 * once they have been unreferenced for `graceMs`.
 *
 * Its rows are the media_orphans table; whether an alert still uses a key is
 * asked of the alert store (isMediaReferenced).
 */
export class MediaOrphans {
  constructor(
    private readonly rows: MediaOrphanRows,
    private readonly media: MediaStore,
    private readonly clock: Clock,
    private readonly graceMs: number,
    private readonly isReferenced: ReferenceCheck,
  ) {}

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
      if (!MEDIA_KEY_RE.test(key) || this.media.isPinned(key) || (await this.isReferenced(key)) || (await this.rows.isListed(key))) continue;
      await this.rows.list([key], now);
      found++;
    }
    return found;
  }

  /**
   * Call after the commit that dropped the references. With a grace of 0 the
   * files go at once (the behaviour before the grace period existed).
   */
  release(keys: string[]): Promise<void> {
    if (this.graceMs === 0) return Promise.resolve(this.media.removeUnreferenced(keys, this.isReferenced)).then(() => {});
    const now = this.clock.now();
    const list = (orphaned: string[]) => (orphaned.length > 0 ? this.rows.list(orphaned, now) : Promise.resolve());
    const orphaned = unreferenced(keys.filter((key) => MEDIA_KEY_RE.test(key)), this.isReferenced);
    return orphaned instanceof Promise ? orphaned.then(list) : list(orphaned);
  }

  /**
   * Lists keys whose fate is not known yet (a failed upload's files on a shared directory): the
   * sweep deletes each after the grace period unless an alert uses it by then.
   */
  listForSweep(keys: string[]): Promise<void> {
    const valid = keys.filter((key) => MEDIA_KEY_RE.test(key));
    return valid.length > 0 ? this.rows.list(valid, this.clock.now()) : Promise.resolve();
  }

  /**
   * Deletes the files unreferenced for longer than the grace period; a key an
   * alert uses again is only forgotten. Works in batches so one run never holds
   * the event loop for long. Returns the number of files deleted.
   */
  async sweep(batchSize = 500): Promise<number> {
    const cutoff = this.clock.now() - this.graceMs;
    let deleted = 0;
    for (;;) {
      const keys = await this.rows.due(cutoff, batchSize);
      if (keys.length === 0) return deleted;
      // Asks about every key first, then settles them one by one under each key's lock: a key an
      // upload pinned since (on any node) is no longer due and stays; one an in-flight upload of this
      // node holds stays listed (if that upload fails, nothing else would delete the file).
      const done = await this.media.removeOrphans(keys, this.isReferenced, (key, decide) => this.rows.settleDue(key, cutoff, decide));
      deleted += done.deleted.length;
      if (keys.length < batchSize || done.settled === 0) return deleted;
    }
  }
}

/** The keys no alert uses: answered synchronously when every answer is (SQLite: listed in the same tick as the commit's release). */
function unreferenced(keys: string[], isReferenced: ReferenceCheck): string[] | Promise<string[]> {
  const answers = keys.map((key) => isReferenced(key));
  if (answers.some((a) => a instanceof Promise)) return Promise.all(answers).then((all) => keys.filter((_, i) => !all[i]));
  return keys.filter((_, i) => !answers[i]);
}
