import { expect } from 'vitest';
import { testEngine, type Harness } from '../helpers/harness.js';

/**
 * The database is whole after hostile input: SQLite's integrity_check answers "ok"; on PostgreSQL
 * every B-tree index of the app is checked against its table by amcheck (bt_index_check with
 * heapallindexed: each row has its index entries; a broken index raises an error).
 */
export async function expectWholeDatabase(h: Pick<Harness, 'query' | 'exec'>): Promise<void> {
  if (testEngine() === 'sqlite') {
    expect(await h.query('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    return;
  }
  await h.exec('CREATE EXTENSION IF NOT EXISTS amcheck');
  const checked = await h.query<{ index: string }>(
    `SELECT c.relname AS index, bt_index_check(c.oid, true) FROM pg_index i
     JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
     WHERE am.amname = 'btree' AND c.relnamespace = 'public'::regnamespace`,
  );
  expect(checked.map((r) => r.index)).toContain('alerts_pkey');
}
