import type Database from 'better-sqlite3';
import type { MediaOrphanRows } from '../domain/media-orphan-rows.js';

/** The media_orphans rows on SQLite (src/ops/media-orphans.ts): synchronous statements, answered as resolved Promises. */
export class SqliteMediaOrphanRows implements MediaOrphanRows {
  private readonly s;

  constructor(sqlite: Database.Database) {
    this.s = {
      // The latest release wins: a key referenced again and released again starts a new grace period.
      upsert: sqlite.prepare<[string, number]>(
        `INSERT INTO media_orphans (media_key, orphaned_at) VALUES (?, ?)
         ON CONFLICT (media_key) DO UPDATE SET orphaned_at = excluded.orphaned_at`,
      ),
      due: sqlite.prepare<[number, number], string>('SELECT media_key FROM media_orphans WHERE orphaned_at <= ? ORDER BY orphaned_at LIMIT ?').pluck(),
      forget: sqlite.prepare<[string]>('DELETE FROM media_orphans WHERE media_key = ?'),
      listed: sqlite.prepare<[string], number>('SELECT 1 FROM media_orphans WHERE media_key = ?').pluck(),
      stillDue: sqlite.prepare<[string, number], number>('SELECT 1 FROM media_orphans WHERE media_key = ? AND orphaned_at <= ?').pluck(),
    };
  }

  list(keys: readonly string[], now: number): Promise<void> {
    for (const key of keys) this.s.upsert.run(key, now);
    return Promise.resolve();
  }

  due(cutoff: number, limit: number): Promise<string[]> {
    return Promise.resolve(this.s.due.all(cutoff, limit));
  }

  forget(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.s.forget.run(key);
    return Promise.resolve();
  }

  isListed(key: string): Promise<boolean> {
    return Promise.resolve(this.s.listed.get(key) !== undefined);
  }

  /** One process: the media store's in-memory pin is what the sweep sees, nothing to store. */
  pin(): Promise<void> {
    return Promise.resolve();
  }

  /** One process, synchronous: the check, `decide` (its unlink) and the forget happen in one tick. */
  settleDue(key: string, cutoff: number, decide: () => boolean): Promise<boolean> {
    try {
      if (this.s.stillDue.get(key, cutoff) === undefined || !decide()) return Promise.resolve(false);
      this.s.forget.run(key);
      return Promise.resolve(true);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
}
