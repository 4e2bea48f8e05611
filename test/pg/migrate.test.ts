import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { migratePg } from '../../src/db/pg/migrate.js';
import { openPg } from '../../src/db/pg/connection.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

const journal: { entries: unknown[] } = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../drizzle-pg/meta/_journal.json'), 'utf8'));

describePg('PostgreSQL migrations at start-up', () => {
  let db: FreshDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it('several nodes starting together on a fresh database migrate once, and all of them start', async () => {
    db = await freshDatabase();
    const nodes = 6;
    // One pool per "node", as separate processes would have.
    const pools = Array.from({ length: nodes }, () => new pg.Pool({ connectionString: db!.url, max: 2 }).on('error', () => {}));
    // As openPg does: an idle client whose connection ends must not crash the test process.
    for (const p of pools) p.on('error', () => {});
    try {
      const results = await Promise.all(pools.map((p) => migratePg(p)));
      expect(results.filter((r) => r.applied > 0)).toHaveLength(1);
      expect(results.reduce((n, r) => n + r.applied, 0)).toBe(journal.entries.length);
      for (const r of results) expect(r.total).toBe(journal.entries.length);
      const { rows } = await pools[0]!.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
      expect(Number(rows[0]!.n)).toBe(journal.entries.length);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('a migrated database has every table, and the channel_stats triggers count alerts', async () => {
    db = await freshDatabase();
    const conn = await openPg(db.url);
    try {
      const { rows } = await conn.pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
      expect(rows.map((r) => r.table_name)).toContain('alerts');
      // Byte-order text everywhere (`text` in src/db/shared/schema/define.ts): ids, cursors and keys sort as on SQLite.
      const collations = await conn.pool.query<{ c: string }>(
        "SELECT table_name || '.' || column_name || ' ' || coalesce(collation_name, 'default') AS c FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C'",
      );
      expect(collations.rows.map((r) => r.c)).toEqual([]);
      await conn.pool.query(`INSERT INTO workspaces (id, name, created_at) VALUES ('w1', 'W', 1)`);
      await conn.pool.query(`INSERT INTO channels (id, workspace_id, name, slug, icon, webhook_token, created_at) VALUES ('c1', 'w1', 'C', 'c', 'x', 'tok', 1)`);
      for (const id of ['a1', 'a2', 'a3']) {
        await conn.pool.query(`INSERT INTO alerts (id, channel_id, kind, activity_key, created_at, updated_at) VALUES ($1, 'c1', 'standard', $1, 1, 1)`, [id]);
      }
      await conn.pool.query(`DELETE FROM alerts WHERE id = 'a2'`);
      const stats = await conn.pool.query<{ alert_count: string }>(`SELECT alert_count FROM channel_stats WHERE channel_id = 'c1'`);
      expect(stats.rows.map((r) => Number(r.alert_count))).toEqual([2]);
      // A second start on the same database applies nothing.
      const again = await openPg(db.url, { onMigrated: (r) => expect(r).toEqual({ applied: 0, total: journal.entries.length }) });
      await again.close();
    } finally {
      await conn.close();
    }
  });
});
