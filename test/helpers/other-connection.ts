import Database from 'better-sqlite3';
import pg from 'pg';

/** Where an installation's rows live: its SQLite file, or its PostgreSQL database. */
export type DatabaseTarget = { dbFile: string } | { url: string };

/** Reads and writes through a connection of the test's own, never the service's (`?` placeholders on both engines; int8 as numbers). */
export interface OtherConnection {
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Rows in a table (what was stored, whatever the API says). */
  count(table: string): Promise<number>;
  /** A write a test needs the API cannot make (ageing or breaking a row); the number of rows changed. */
  exec(sql: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/** int8 (count(*), epoch milliseconds) read as numbers, as SQLite and the service's own pool give them. */
export const INT8_AS_NUMBER = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format ?? 'text'))) as typeof pg.types.getTypeParser,
};

/** `?` placeholders as PostgreSQL's `$1, $2, …`. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** A connection of the test's own: a read-only SQLite handle (and a writer when a test writes), or a small pool. */
export function otherConnection(target: DatabaseTarget): OtherConnection {
  if ('dbFile' in target) {
    let db: Database.Database | undefined;
    let writer: Database.Database | undefined;
    // Opened at the first use: the service creates the file.
    const reader = () => (db ??= new Database(target.dbFile, { readonly: true }));
    const write = (sql: string, params: unknown[]) => {
      if (!writer) {
        writer = new Database(target.dbFile);
        writer.pragma('busy_timeout = 5000');
      }
      return writer.prepare(sql).run(...params).changes;
    };
    return {
      query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => {
        // A statement without rows (an UPDATE staging a crash) runs through the writer and answers [], as on PostgreSQL.
        const stmt = reader().prepare<unknown[], T>(sql);
        if (stmt.reader) return stmt.all(...params);
        write(sql, params);
        return [];
      },
      count: async (table) => reader().prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get() ?? 0,
      exec: async (sql, params = []) => write(sql, params),
      close: async () => {
        db?.close();
        writer?.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: target.url, max: 2, types: INT8_AS_NUMBER });
  // The DROP … WITH (FORCE) after close can reach a client still ending: not an uncaught error (harness.ts).
  pool.on('error', () => {});
  return {
    query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => (await pool.query<T>(numbered(sql), params)).rows,
    count: async (table) => Number((await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n ?? 0),
    exec: async (sql, params = []) => (await pool.query(numbered(sql), params)).rowCount ?? 0,
    close: () => pool.end(),
  };
}

/** One read through a connection opened and closed for it (after a process exited, say). */
export async function readRows<T extends Record<string, unknown>>(target: DatabaseTarget, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = otherConnection(target);
  try {
    return await c.query<T>(sql, params);
  } finally {
    await c.close();
  }
}
