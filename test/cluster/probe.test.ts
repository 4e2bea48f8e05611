import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgProbe } from '../../src/db/pg/probe.js';
import { SqliteProbe } from '../../src/db/sqlite/probe.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine } from './engines.js';

/** /readyz's database check on each engine: it answers and can take writes, or says why not. */
describe('database probe: SQLite', () => {
  let h: Awaited<ReturnType<typeof sqliteEngine>>;
  beforeAll(async () => void (h = await sqliteEngine([])));
  afterAll(() => h.close());

  it('is ok on a healthy file, and names the page limit when the file cannot grow', async () => {
    const probe = new SqliteProbe(h.db.sqlite);
    expect(await probe.probe()).toEqual({ ok: true });
    h.db.sqlite.exec('VACUUM');
    const pages = Number(h.db.sqlite.pragma('page_count', { simple: true }));
    h.db.sqlite.pragma(`max_page_count = ${pages}`);
    expect(await probe.probe()).toEqual({ ok: false, reason: 'the database reached its page limit (max_page_count)' });
  });
});

describePg('database probe: PostgreSQL', () => {
  it('is ok on a reachable primary', async () => {
    const h = await pgEngine([]);
    try {
      expect(await new PgProbe(h.db.pool).probe()).toEqual({ ok: true });
    } finally {
      await h.close();
    }
  });

  it('is not ok, with the driver\'s reason, when the server cannot be reached', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: 1, user: 'postgres', database: 'test', connectionTimeoutMillis: 1_000 });
    pool.on('error', () => {});
    try {
      const r = await new PgProbe(pool).probe();
      expect(r.ok).toBe(false);
      expect(!r.ok && r.reason).toMatch(/ECONNREFUSED|connect/);
    } finally {
      await pool.end();
    }
  });
});
