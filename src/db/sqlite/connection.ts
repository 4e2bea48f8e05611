import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';

/** Statements are written with src/db/shared/statement.ts and run on this handle. */
export interface Db {
  /** Raw better-sqlite3 handle, for prepared statements on hot paths. */
  readonly sqlite: Database.Database;
  close(): void;
}

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../drizzle');

/**
 * Opens (creating if needed) the SQLite file and applies pending migrations.
 * WAL lets the admin CLI write while the server runs; synchronous=NORMAL is
 * durable against process crashes (not power loss), the usual trade-off for WAL.
 */
export function openDb(file: string, opts: { migrate?: boolean } = {}): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // The CLI and the server share the file: wait for a lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  // 8 MB: the hot pages (index tails, newest alerts) are few; older pages come from the OS page cache, outside
  // the process's RSS. 32 MB cost up to 24 MB more RSS with no measurable change in page p99 (docs/benchmarks.md "Memory: where it goes").
  sqlite.pragma('cache_size = -8000');
  // Statement journals (savepoints, multi-row statements) and temp tables in memory, not in temp files.
  sqlite.pragma('temp_store = MEMORY');
  if (opts.migrate !== false && migrationPending(sqlite)) migrateNow(sqlite);
  return {
    sqlite,
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

/**
 * Whether drizzle's migrator would apply anything: it applies each migration newer than the
 * newest recorded one (drizzle-orm/sqlite-core/dialect.js), so one comparison tells. Checked
 * first so that a start with nothing to migrate does not load drizzle (about 110 modules and a
 * few MB of memory the running service never uses).
 */
function migrationPending(sqlite: Database.Database): boolean {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as { entries: { when: number }[] };
  const newest = Math.max(...journal.entries.map((e) => e.when));
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return true;
  const row = sqlite.prepare('SELECT max(created_at) AS last FROM __drizzle_migrations').get() as { last: number | string | null };
  return row.last === null || Number(row.last) < newest;
}

/** drizzle's own migrator, loaded (synchronously, as opening is) only when there is something to apply. */
function migrateNow(sqlite: Database.Database): void {
  const require = createRequire(import.meta.url);
  const { drizzle } = require('drizzle-orm/better-sqlite3') as typeof import('drizzle-orm/better-sqlite3');
  const { migrate } = require('drizzle-orm/better-sqlite3/migrator') as typeof import('drizzle-orm/better-sqlite3/migrator');
  migrate(drizzle(sqlite), { migrationsFolder: MIGRATIONS_DIR });
}
