import type Database from 'better-sqlite3';
import type { DatabaseProbe, ProbeResult } from '../../domain/database-probe.js';

/**
 * SQLite: answers a query, and may still allocate a page: the file is below its page limit
 * (PRAGMA max_page_count, what tests use to simulate a full disk) or has free pages to reuse. A
 * real full disk shows up in statfs instead (the readiness disk check).
 */
export class SqliteProbe implements DatabaseProbe {
  constructor(private readonly sqlite: Database.Database) {}

  async probe(): Promise<ProbeResult> {
    try {
      this.sqlite.prepare('SELECT 1').get();
      return databaseHasRoom(this.sqlite) ? { ok: true } : { ok: false, reason: 'the database reached its page limit (max_page_count)' };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
  }
}

function databaseHasRoom(sqlite: Database.Database): boolean {
  const pragma = (name: string) => Number(sqlite.pragma(name, { simple: true }));
  return pragma('page_count') < pragma('max_page_count') || pragma('freelist_count') > 0;
}
