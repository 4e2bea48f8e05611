import fs from 'node:fs';
import { openDb, type Db } from '../sqlite/connection.js';
import { quote, READ_BATCH, type TransferEngine } from './engine.js';
import { integerValue, normalise, type TableSpec, type Value } from './tables.js';

/**
 * A SQLite file as an export source or import target. better-sqlite3 is synchronous; the async
 * methods only fit the shared interface. BEGIN/COMMIT are issued by hand because the import's
 * transaction spans many awaits (reading the file); nothing else uses this connection meanwhile.
 */
export class SqliteTransferEngine implements TransferEngine {
  readonly dialect = 'sqlite';

  private constructor(
    private readonly db: Db,
    readonly where: string,
  ) {}

  /** An existing installation's file (export): refuses a path where there is no database. */
  static openExisting(file: string): SqliteTransferEngine {
    if (!fs.existsSync(file)) throw new Error(`no database at ${file} (is DATA_DIR right?)`);
    return new SqliteTransferEngine(openDb(file), file);
  }

  /** An import target: created and migrated when missing, as `npm start` would. */
  static openTarget(file: string): SqliteTransferEngine {
    return new SqliteTransferEngine(openDb(file), file);
  }

  begin(mode: 'read' | 'write'): Promise<void> {
    // IMMEDIATE takes the write lock at once, so a running service cannot slip rows in between the
    // emptiness check and the import; a deferred read transaction is a WAL snapshot from its first read.
    this.db.sqlite.exec(mode === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
    return Promise.resolve();
  }

  commit(): Promise<void> {
    this.db.sqlite.exec('COMMIT');
    return Promise.resolve();
  }

  rollback(): Promise<void> {
    if (this.db.sqlite.inTransaction) this.db.sqlite.exec('ROLLBACK');
    return Promise.resolve();
  }

  async *rows(table: TableSpec): AsyncIterable<Value[][]> {
    const cols = table.columns.map((c) => quote(c.name)).join(', ');
    const order = table.primaryKey.map(quote).join(', ');
    const stmt = this.db.sqlite.prepare(`SELECT ${cols} FROM ${quote(table.name)} ORDER BY ${order}`).raw(true);
    let batch: Value[][] = [];
    for (const raw of stmt.iterate()) {
      batch.push(this.row(table, raw));
      if (batch.length === READ_BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  private row(table: TableSpec, raw: unknown): Value[] {
    if (!Array.isArray(raw) || raw.length !== table.columns.length) throw new Error(`${table.name}: unexpected row shape`);
    return table.columns.map((c, i) => normalise(c.kind, raw[i], `${table.name}.${c.name}`));
  }

  nonEmpty(tables: readonly TableSpec[]): Promise<string[]> {
    return Promise.resolve(tables.filter((t) => this.db.sqlite.prepare(`SELECT 1 FROM ${quote(t.name)} LIMIT 1`).pluck().get() !== undefined).map((t) => t.name));
  }

  insert(table: TableSpec, rows: readonly Value[][]): Promise<void> {
    const cols = table.columns.map((c) => quote(c.name)).join(', ');
    const marks = table.columns.map(() => '?').join(', ');
    const stmt = this.db.sqlite.prepare(`INSERT INTO ${quote(table.name)} (${cols}) VALUES (${marks})`);
    for (const r of rows) stmt.run(r.map((v) => (typeof v === 'boolean' ? Number(v) : v)));
    return Promise.resolve();
  }

  clear(table: TableSpec): Promise<void> {
    this.db.sqlite.prepare(`DELETE FROM ${quote(table.name)}`).run();
    return Promise.resolve();
  }

  sequence(table: TableSpec): Promise<number | null> {
    if (!table.sequenceColumn) return Promise.resolve(null);
    const v: unknown = this.db.sqlite.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(table.name);
    return Promise.resolve(v === undefined ? null : integerValue(v, `sqlite_sequence.${table.name}`));
  }

  setSequence(table: TableSpec, value: number | null): Promise<void> {
    if (!table.sequenceColumn) return Promise.resolve();
    const maxId: unknown = this.db.sqlite.prepare(`SELECT coalesce(max(${quote(table.sequenceColumn)}), 0) FROM ${quote(table.name)}`).pluck().get();
    const next = Math.max(value ?? 0, integerValue(maxId, `${table.name}.${table.sequenceColumn}`) ?? 0);
    if (next === 0) return Promise.resolve();
    this.db.sqlite.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(table.name);
    this.db.sqlite.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table.name, next);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
