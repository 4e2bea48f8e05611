import fs from 'node:fs';
import path from 'node:path';
import { openDb, type Db } from '../../src/db/sqlite/connection.js';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import type { TransferEngine } from '../../src/db/transfer/engine.js';
import { PgTransferEngine } from '../../src/db/transfer/pg-engine.js';
import { SqliteTransferEngine } from '../../src/db/transfer/sqlite-engine.js';
import { transferTables, type Value } from '../../src/db/transfer/tables.js';
import { tempDir } from '../helpers/harness.js';
import { freshDatabase } from '../helpers/pg.js';

/** Rows per table, by column name (missing columns are NULL), inserted in this order. */
export type Fixture = [string, Record<string, Value>[]][];

/**
 * One database of each engine for the two-engine contract tests: seeded with the same rows (through
 * the export/import engines, so booleans and times are spelled once), plus a second connection that
 * reads and writes as another node would. The row modules under test get `db` (and `other`, for a
 * second node's row modules).
 */
type Row = Record<string, unknown>;

export interface EngineHandle {
  /** Runs a statement through another connection (another node). */
  exec(sql: string, params?: unknown[]): Promise<void>;
  /** Reads through that other connection; `?` placeholders on both engines. */
  query<T extends Row>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

async function seed(engine: TransferEngine, fixture: Fixture) {
  const specs = new Map(transferTables().map((t) => [t.name, t]));
  try {
    for (const [table, rows] of fixture) {
      const spec = specs.get(table);
      if (!spec) throw new Error(`no table ${table}`);
      // A column no fixture row names takes its default (a column added later, such as users.email_verified).
      const named = { ...spec, columns: spec.columns.filter((c) => rows.some((r) => c.name in r) || (table === 'alerts' && c.name === 'seq')) };
      // alerts.seq: 0 lets the insert trigger number the alert, as for any writer that leaves it out.
      await engine.insert(named, rows.map((r) => named.columns.map((c) => r[c.name] ?? (table === 'alerts' && c.name === 'seq' ? 0 : null))));
    }
  } finally {
    await engine.close();
  }
}

/** A fresh SQLite file in a temp dir, seeded; `db` is the service's connection. */
export async function sqliteEngine(fixture: Fixture): Promise<EngineHandle & { db: Db; other: Db }> {
  const dir = tempDir();
  const file = path.join(dir, 'alertbridge.db');
  await seed(SqliteTransferEngine.openTarget(file), fixture);
  const db = openDb(file);
  const other = openDb(file, { migrate: false });
  return {
    db,
    other,
    exec: async (sql, params = []) => void other.sqlite.prepare(sql).run(...params),
    query: <T extends Row>(sql: string, params: unknown[] = []) => Promise.resolve(other.sqlite.prepare<unknown[], T>(sql).all(...params)),
    close: async () => {
      other.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh PostgreSQL database on TEST_DATABASE_URL's server, migrated and seeded; dropped on close. */
export async function pgEngine(fixture: Fixture): Promise<EngineHandle & { db: PgDb; other: PgDb; url: string }> {
  const fresh = await freshDatabase({ migrated: true });
  await seed(await PgTransferEngine.open(fresh.url), fixture);
  const db = await openPg(fresh.url);
  const other = await openPg(fresh.url, { migrate: false });
  const run = async <T extends Row>(sql: string, params: unknown[]) => {
    let n = 0;
    return (await other.pool.query<T>(sql.replace(/\?/g, () => `$${++n}`), params)).rows;
  };
  return {
    db,
    other,
    /** The fresh database's URL, for connections of a test's own (a node's dedicated one). */
    url: fresh.url,
    exec: async (sql, params = []) => void (await run(sql, params)),
    query: <T extends Row>(sql: string, params: unknown[] = []) => run<T>(sql, params),
    close: async () => {
      await other.close();
      await db.close();
      await fresh.drop();
    },
  };
}
