import fs from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createApp, type App } from '../../src/http/app.js';
import type { Mailer } from '../../src/notify/mailer.js';
import { createServices, openServices, type ServiceOverrides, type Services } from '../../src/services.js';
import { listen, tempDir } from './harness.js';
import { describePg, freshDatabase, type FreshDatabase } from './pg.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** Cheap scrypt for tests (test/dashboard/helpers.ts uses the same). */
const TEST_SCRYPT = { N: 2 ** 12, r: 8, p: 1 };

/** One node: the real services and app over the engine, served on a loopback port (PUBLIC_URL is that port). */
export interface EngineNode {
  config: Config;
  services: Services;
  app: App;
  /** http://127.0.0.1:PORT */
  base: string;
  /** A real HTTP request to this node; `token` as Bearer, `json` as the body. */
  call(method: string, path: string, opts?: { token?: string; json?: unknown; headers?: Record<string, string>; body?: BodyInit }): Promise<Response>;
  close(): Promise<void>;
}

/** A database of either engine, a DATA_DIR (media) shared by its nodes, and the first node. */
export interface EngineHarness extends EngineNode {
  engine: Engine;
  dir: string;
  /**
   * Rows read straight from the database by another connection (`?` placeholders on both engines;
   * bigint columns and counts as numbers on both). A statement without rows (an UPDATE staging a
   * crash) runs too and answers [].
   */
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Another node on the same database and media directory (PostgreSQL only: one SQLite file has one process). */
  node(opts?: { env?: Record<string, string>; overrides?: ServiceOverrides }): Promise<EngineNode>;
  /**
   * A service restart on either engine: every node still open is closed, then one new node starts
   * on the same database and DATA_DIR (with the harness's env and `opts`). The harness's own node
   * members (services, call, ...) stay those of the first node: use the returned node.
   */
  restart(opts?: { env?: Record<string, string>; overrides?: ServiceOverrides }): Promise<EngineNode>;
  /** Closes every node still open (a service stopped), keeping the database and DATA_DIR for `restart`. */
  stopNodes(): Promise<void>;
}

/** int8 (counts, epoch milliseconds) as a number, as the service's own pool and SQLite give it. */
const INT8_AS_NUMBER = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

export interface EngineHarnessOptions {
  env?: Record<string, string>;
  overrides?: ServiceOverrides;
  /** The dashboard's mailer (null: none, as without SMTP_URL). */
  mailer?: Mailer | null;
  /**
   * PostgreSQL, inside describeEngines only: start on a database an earlier harness of the same block
   * closed and emptied (every table truncated, the migrations kept), instead of creating and migrating
   * a new one: 1–3 s less per harness on a busy machine, for files that build one per test
   * (test/discord/). The block's afterAll drops those databases.
   */
  reuseDatabase?: boolean;
}

/** Closed and emptied databases, ready for the next `reuseDatabase` harness of the running describeEngines block(s). */
const spareDatabases: FreshDatabase[] = [];
let reuseScopes = 0;

/** Every table of the app emptied (the drizzle schema, with the applied migrations, is kept): a migrated database as on its first start. */
async function emptyDatabase(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ t: string }>("SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname = 'public'");
  if (rows.length > 0) await pool.query(`TRUNCATE ${rows.map((r) => r.t).join(', ')} RESTART IDENTITY CASCADE`);
}

/**
 * The async twin of createHarness: the real services and app on SQLite (a temp DATA_DIR) or on
 * PostgreSQL (a fresh database on TEST_DATABASE_URL's server, dropped at close), built by the
 * service's own engine choice (`openServices` with DATABASE_URL), served over loopback HTTP.
 */
export async function createEngineHarness(engine: Engine, opts: EngineHarnessOptions = {}): Promise<EngineHarness> {
  const dir = tempDir('alertbridge-engine-');
  let fresh: FreshDatabase | undefined;
  let reader: { query: EngineHarness['query']; close(): Promise<void> };
  const nodes: EngineNode[] = [];
  if (engine === 'postgres') {
    if (opts.reuseDatabase && reuseScopes === 0) throw new Error('reuseDatabase needs a describeEngines block (its afterAll drops the databases)');
    fresh = (opts.reuseDatabase ? spareDatabases.pop() : undefined) ?? (await freshDatabase());
    const db = fresh;
    const pool = new pg.Pool({ connectionString: fresh.url, max: 2, types: INT8_AS_NUMBER });
    // pool.end() resolves once its clients are told to end, not once they have: the database's DROP … WITH (FORCE)
    // can still reach one, and an idle client's error with no pool listener would be an uncaught exception.
    pool.on('error', () => {});
    reader = {
      query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => {
        let n = 0;
        return (await pool.query<T>(sql.replace(/\?/g, () => `$${++n}`), params)).rows;
      },
      close: async () => {
        if (!opts.reuseDatabase) return pool.end();
        // The nodes are closed: nothing writes any more. A database that cannot be emptied is dropped, not reused.
        try {
          await emptyDatabase(pool);
          spareDatabases.push(db);
        } finally {
          await pool.end();
        }
      },
    };
  }
  const startNode = async (o: EngineHarnessOptions): Promise<EngineNode> => {
    // eslint-disable-next-line prefer-const
    let app: App | undefined;
    const server = await listen((req) => app!.fetch(req));
    const config = loadConfig({
      DATA_DIR: dir,
      PUBLIC_URL: server.url,
      LOG_LEVEL: 'silent',
      AVATAR_BASE_URL: '',
      ...(fresh ? { DATABASE_URL: fresh.url, PG_POOL_MAX: '4' } : {}),
      ...opts.env,
      ...o.env,
    });
    const services = engine === 'sqlite' ? createServices(config, o.overrides) : await openServices(config, o.overrides);
    app = createApp(services, { dashboard: { scrypt: TEST_SCRYPT, mailer: o.mailer ?? opts.mailer ?? null } });
    let closed = false;
    const node: EngineNode = {
      config,
      services,
      app,
      base: server.url,
      call: (method, p, c = {}) => {
        const headers: Record<string, string> = { ...c.headers };
        if (c.token !== undefined) headers.authorization = `Bearer ${c.token}`;
        let body = c.body;
        if (c.json !== undefined) {
          headers['content-type'] ??= 'application/json';
          body = JSON.stringify(c.json);
        }
        return fetch(new URL(p, server.url), { method, headers, body, redirect: 'manual' });
      },
      close: async () => {
        if (closed) return;
        closed = true;
        services.live.closeAll();
        await server.close();
        await services.close();
      },
    };
    nodes.push(node);
    return node;
  };
  const first = await startNode(opts);
  if (engine === 'sqlite') {
    // Its own connection to the file the first node created (WAL: it reads what the nodes committed), so it outlives a restart.
    const sqlite = new Database(first.config.dbFile);
    sqlite.pragma('busy_timeout = 5000');
    reader = {
      query: <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => {
        const stmt = sqlite.prepare<unknown[], T>(sql);
        if (stmt.reader) return Promise.resolve(stmt.all(...params));
        stmt.run(...params);
        return Promise.resolve([]);
      },
      close: () => Promise.resolve(void sqlite.close()),
    };
  }
  return {
    ...first,
    engine,
    dir,
    query: (sql, params) => reader.query(sql, params),
    node: (o = {}) => {
      if (engine === 'sqlite') throw new Error('a second node needs PostgreSQL');
      return startNode({ ...o, env: { ...o.env } });
    },
    restart: async (o = {}) => {
      for (const n of nodes) await n.close();
      return startNode({ ...o, env: { ...o.env } });
    },
    stopNodes: async () => {
      for (const n of nodes) await n.close();
    },
    close: async () => {
      for (const n of nodes.reverse()) await n.close();
      try {
        await reader.close();
      } finally {
        if (fresh && !spareDatabases.includes(fresh)) await fresh.drop();
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `describe` for each engine: SQLite always; PostgreSQL when TEST_DATABASE_URL is set (skipped with a printed reason, failing under CI=true). */
export function describeEngines(name: string, body: (engine: Engine) => void): void {
  for (const engine of ENGINES) {
    const title = `${name} (${engine})`;
    if (engine === 'postgres') {
      describePg(title, () => {
        beforeAll(() => {
          reuseScopes++;
        });
        afterAll(async () => {
          if (--reuseScopes > 0) return;
          for (const db of spareDatabases.splice(0)) await db.drop();
        });
        body(engine);
      });
    } else describe(title, () => body(engine));
  }
}
