import { openPg, type PgDb } from '../pg/connection.js';
import { IMPORT_LOCK } from '../shared/advisory-locks.js';
import { holdClient, type HeldClient } from '../pg/transaction.js';
import { quote, READ_BATCH, type TransferEngine } from './engine.js';
import { integerValue, normalise, type TableSpec, type Value } from './tables.js';

/** PostgreSQL caps a statement at 65,535 parameters; multi-row inserts stay well under it. */
const MAX_PARAMS = 30_000;

/**
 * A PostgreSQL database (migrated on open, under the migration lock) as an export source or import
 * target. Everything runs on one dedicated connection: the export's snapshot (REPEATABLE READ, READ
 * ONLY) and the import's single transaction live on it, and rows stream through a server-side cursor.
 */
export class PgTransferEngine implements TransferEngine {
  readonly dialect = 'postgres';

  private constructor(
    private readonly db: PgDb,
    private readonly held: HeldClient,
    readonly where: string,
  ) {}

  static async open(url: string): Promise<PgTransferEngine> {
    const db = await openPg(url, { max: 1 });
    try {
      return new PgTransferEngine(db, await holdClient(db.pool), describeUrl(url));
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  async begin(mode: 'read' | 'write'): Promise<void> {
    if (mode === 'read') {
      await this.held.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return;
    }
    await this.held.client.query('BEGIN');
    // Two imports into the same database at once: the second waits, then finds it not empty.
    await this.held.client.query('SELECT pg_advisory_xact_lock($1)', [IMPORT_LOCK]);
  }

  async commit(): Promise<void> {
    await this.held.client.query('COMMIT');
  }

  async rollback(): Promise<void> {
    await this.held.client.query('ROLLBACK');
  }

  async *rows(table: TableSpec): AsyncIterable<Value[][]> {
    const cols = table.columns.map((c) => quote(c.name)).join(', ');
    // COLLATE "C": byte order, which is SQLite's BINARY order for UTF-8 text, whatever the database's collation.
    const order = table.primaryKey
      .map((name) => (table.columns.find((c) => c.name === name)?.kind === 'text' ? `${quote(name)} COLLATE "C"` : quote(name)))
      .join(', ');
    await this.held.client.query(`DECLARE transfer_rows NO SCROLL CURSOR FOR SELECT ${cols} FROM ${quote(table.name)} ORDER BY ${order}`);
    try {
      for (;;) {
        const res = await this.held.client.query<unknown[]>({ text: `FETCH ${READ_BATCH} FROM transfer_rows`, rowMode: 'array' });
        if (res.rows.length === 0) break;
        yield res.rows.map((raw) => {
          if (raw.length !== table.columns.length) throw new Error(`${table.name}: unexpected row shape`);
          return table.columns.map((c, i) => normalise(c.kind, raw[i], `${table.name}.${c.name}`));
        });
      }
    } finally {
      await this.held.client.query('CLOSE transfer_rows');
    }
  }

  async nonEmpty(tables: readonly TableSpec[]): Promise<string[]> {
    const found: string[] = [];
    for (const t of tables) {
      const res = await this.held.client.query(`SELECT 1 FROM ${quote(t.name)} LIMIT 1`);
      if (res.rowCount) found.push(t.name);
    }
    return found;
  }

  async insert(table: TableSpec, rows: readonly Value[][]): Promise<void> {
    const width = table.columns.length;
    const per = Math.max(1, Math.floor(MAX_PARAMS / width));
    const cols = table.columns.map((c) => quote(c.name)).join(', ');
    for (let start = 0; start < rows.length; start += per) {
      const chunk = rows.slice(start, start + per);
      const tuples = chunk.map((_, r) => `(${table.columns.map((__, c) => `$${r * width + c + 1}`).join(', ')})`);
      await this.held.client.query(`INSERT INTO ${quote(table.name)} (${cols}) VALUES ${tuples.join(', ')}`, chunk.flat());
    }
  }

  async clear(table: TableSpec): Promise<void> {
    await this.held.client.query(`DELETE FROM ${quote(table.name)}`);
  }

  async sequence(table: TableSpec): Promise<number | null> {
    const seq = await this.sequenceName(table);
    if (!seq) return null;
    const res = await this.held.client.query<{ last_value: unknown; is_called: unknown }>(`SELECT last_value, is_called FROM ${seq}`);
    const row = res.rows[0];
    return row && row.is_called === true ? integerValue(row.last_value, `${table.name} sequence`) : null;
  }

  async setSequence(table: TableSpec, value: number | null): Promise<void> {
    const seq = await this.sequenceName(table);
    if (!seq || !table.sequenceColumn) return;
    const res = await this.held.client.query<{ m: unknown }>(`SELECT coalesce(max(${quote(table.sequenceColumn)}), 0) AS m FROM ${quote(table.name)}`);
    const next = Math.max(value ?? 0, integerValue(res.rows[0]?.m, `${table.name}.${table.sequenceColumn}`) ?? 0);
    if (next > 0) await this.held.client.query('SELECT setval($1::regclass, $2, true)', [seq, next]);
  }

  private async sequenceName(table: TableSpec): Promise<string | null> {
    if (!table.sequenceColumn) return null;
    const res = await this.held.client.query<{ s: unknown }>('SELECT pg_get_serial_sequence($1, $2) AS s', [quote(table.name), table.sequenceColumn]);
    const s = res.rows[0]?.s;
    return typeof s === 'string' ? s : null;
  }

  async close(): Promise<void> {
    this.held.release();
    await this.db.close();
  }
}

/** host:port/database, without user or password, for messages and command output. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.host}${u.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
