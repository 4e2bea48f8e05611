import pg from 'pg';
import { migratePg, type MigrationResult } from './migrate.js';
import { NulSafeClient } from './nul-safe-client.js';

/** Statements are written with src/db/shared/statement.ts and run on this pool. */
export interface PgDb {
  /** The `pg` pool, for raw statements and dedicated clients (locks, LISTEN). */
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

export interface PgOpenOptions {
  /** Apply pending migrations (under the migration advisory lock) before returning; default true. */
  migrate?: boolean;
  /** Pool size; default 10. */
  max?: number;
  /** Told what the migration step did (for a start-up log line). */
  onMigrated?: (result: MigrationResult) => void;
}

/**
 * Connects to PostgreSQL and, unless told otherwise, migrates. The URL is a libpq-style
 * `postgres://user:password@host:port/database` (`?sslmode=...` and the other options `pg` knows
 * are honoured).
 */
export async function openPg(url: string, opts: PgOpenOptions = {}): Promise<PgDb> {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, types: { getTypeParser }, Client: NulSafeClient });
  // An idle client losing its connection (server restart) emits on the pool: without a listener
  // that would crash the process; the next query gets a fresh connection instead.
  pool.on('error', () => {});
  try {
    if (opts.migrate !== false) {
      const result = await migratePg(pool);
      opts.onMigrated?.(result);
    }
  } catch (err) {
    await pool.end();
    throw err;
  }
  return { pool, close: () => pool.end() };
}

const INT8_OID = 20;

/**
 * bigint (int8: epoch milliseconds, counts, change-log ids) as a JS number, as SQLite gives it:
 * every such value here stays far below 2^53; one that does not is an error, never a rounded number.
 */
function getTypeParser(oid: number, format?: 'text' | 'binary') {
  if (oid === INT8_OID && format !== 'binary') {
    return (value: string) => {
      const n = Number(value);
      if (!Number.isSafeInteger(n)) throw new Error(`bigint ${value} is beyond JavaScript's safe integers`);
      return n;
    };
  }
  return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
}
