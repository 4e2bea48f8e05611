import Database from 'better-sqlite3';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import type { App } from '../../src/http/app.js';
import { openServices, type ServiceOverrides, type Services } from '../../src/services.js';
import type { Engine } from './engine-harness.js';
import { createHarness, harnessOver, tempDir, type Harness } from './harness.js';
import { freshDatabase } from './pg.js';

/** The engine a file's harnesses use: SQLite, or PostgreSQL when TEST_ENGINE=postgres (the `*-on-postgres` projects of vitest.config.ts). */
export function testEngine(): Engine {
  return process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
}

/** createHarness on either engine: what an engine-neutral test file uses (no `services.db`). */
export interface AnyHarness {
  dir: string;
  config: Config;
  services: Services;
  app: App;
  call: Harness['call'];
  /** Rows read straight from the database through another connection (`?` placeholders on both engines; int8 as numbers). */
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Rows in a table, counted through that connection (what was stored, whatever the API says). */
  count(table: string): Promise<number>;
  /** A write through another connection (`?` placeholders), for a test that ages or breaks a row the API cannot; the number of rows changed. */
  exec(sql: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/** int8 (count(*), epoch milliseconds) read as numbers, as SQLite and the service's own pool give them. */
const INT8_AS_NUMBER = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format ?? 'text'))) as typeof pg.types.getTypeParser,
};

/** A reader on another connection: a read-only SQLite handle, or a small pool. */
function readerOf(target: { dbFile: string } | { url: string }): Pick<AnyHarness, 'query' | 'count' | 'exec' | 'close'> {
  if ('dbFile' in target) {
    let db: Database.Database | undefined;
    let writer: Database.Database | undefined;
    // Opened at the first use: the service creates the file.
    const reader = () => (db ??= new Database(target.dbFile, { readonly: true }));
    return {
      query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => reader().prepare<unknown[], T>(sql).all(...params),
      count: async (table) => reader().prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get() ?? 0,
      exec: async (sql, params = []) => {
        writer ??= new Database(target.dbFile);
        writer.pragma('busy_timeout = 5000');
        return writer.prepare(sql).run(...params).changes;
      },
      close: async () => {
        db?.close();
        writer?.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: target.url, max: 2, types: INT8_AS_NUMBER });
  // The DROP … WITH (FORCE) after close can reach a client still ending: not an uncaught error (engine-harness.ts).
  pool.on('error', () => {});
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => (await pool.query<T>(numbered(sql), params)).rows,
    count: async (table) => Number((await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n ?? 0),
    exec: async (sql, params = []) => (await pool.query(numbered(sql), params)).rowCount ?? 0,
    close: () => pool.end(),
  };
}

/**
 * The real services and app, in-process, on testEngine() (or `engine`): createHarness's temp SQLite file, or a
 * fresh PostgreSQL database on TEST_DATABASE_URL's server (dropped at close) built by the service's
 * own `openServices`, with the same PUBLIC_URL and settings.
 */
export async function startHarness(opts: { env?: Record<string, string>; overrides?: ServiceOverrides; engine?: Engine } = {}): Promise<AnyHarness> {
  if ((opts.engine ?? testEngine()) === 'sqlite') {
    const h = createHarness(opts);
    const reader = readerOf({ dbFile: h.config.dbFile });
    return {
      ...h,
      query: reader.query,
      count: reader.count,
      exec: reader.exec,
      close: async () => {
        await reader.close();
        await h.close();
      },
    };
  }
  const dir = tempDir();
  const fresh = await freshDatabase();
  const config = loadConfig({
    DATA_DIR: dir,
    PUBLIC_URL: 'http://alertbridge.test',
    LOG_LEVEL: 'silent',
    AVATAR_BASE_URL: '',
    DATABASE_URL: fresh.url,
    PG_POOL_MAX: '4',
    ...opts.env,
  });
  const services = await openServices(config, opts.overrides);
  const reader = readerOf({ url: fresh.url });
  return {
    ...harnessOver(dir, config, services, async () => {
      await reader.close();
      await services.close();
      await fresh.drop();
    }),
    query: reader.query,
    count: reader.count,
    exec: reader.exec,
  };
}
