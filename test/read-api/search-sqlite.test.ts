import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/bodies.js';
import { startHarness, postAlert, seedWorkspace, type Harness } from '../helpers/harness.js';
import { sqliteServicesOf } from '../../src/services.js';
import { eventually } from '../helpers/poll.js';

// SQLite only: the FTS5 index's own tables (one docsize row per indexed rowid), a backup copy made by VACUUM INTO, and
// indexing after the commit (PostgreSQL's search column is computed by the write itself).

let h: Harness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
beforeEach(async () => {
  h = await startHarness({ engine: 'sqlite' });
  seed = await seedWorkspace(h.services);
});
afterEach(async () => h?.close());

const post = async (token: string, payload: object) => {
  const r = await postAlert(h, token, payload);
  expect(r.res.status).toBeLessThan(300);
  return accepted(r.body).alertId;
};
const titles = async (q: string) => {
  const res = await h.call('GET', `/api/search?q=${encodeURIComponent(q)}`, { token: seed.ownerToken });
  expect(res.status).toBe(200);
  return ((await res.json()) as { alerts: { title: string }[] }).alerts.map((a) => a.title);
};

/** The index holds exactly the stored alerts: one docsize row per indexed rowid. */
const indexedRowids = () => sqliteServicesOf(h.services).db.sqlite.prepare('SELECT id FROM alerts_fts_docsize ORDER BY id').pluck().all();
const storedRowids = () => sqliteServicesOf(h.services).db.sqlite.prepare('SELECT rowid FROM alerts ORDER BY rowid').pluck().all();

describe('the SQLite search index', () => {
  it('holds exactly the stored alerts after a plain DELETE (as retention does) and a channel delete', async () => {
    await post(seed.general.webhookToken, { title: 'token leaked in log' });
    await post(seed.deploys.webhookToken, { title: 'token rotated' });
    const sqlite = sqliteServicesOf(h.services).db.sqlite;
    sqlite.prepare("DELETE FROM alerts WHERE title = 'token leaked in log'").run();
    expect(await titles('token')).toEqual(['token rotated']);
    sqlite.prepare('DELETE FROM channels WHERE id = ?').run(seed.deploys.id);
    expect(await titles('token')).toEqual([]);
    // The index itself holds exactly the stored alerts (one docsize row per indexed row), not just the joins above hiding the rest.
    expect(indexedRowids()).toEqual(storedRowids());
    expect(indexedRowids()).toEqual([]);
    await post(seed.general.webhookToken, { title: 'token again' });
    expect(await titles('token')).toEqual(['token again']);
  });

  it('survives a backup copy (VACUUM INTO): the index is keyed by rowids the copy keeps', async () => {
    for (const w of ['alpha', 'bravo', 'charlie', 'delta']) await post(seed.general.webhookToken, { title: `${w} probe` });
    const sqlite = sqliteServicesOf(h.services).db.sqlite;
    sqlite.prepare("DELETE FROM alerts WHERE title = 'bravo probe'").run();
    // New alerts are indexed just after their commit (every search first does it): the copy is read raw below.
    expect(await titles('probe')).toEqual(['delta probe', 'charlie probe', 'alpha probe']);
    const copy = path.join(h.dir, 'copy.db');
    sqlite.prepare('VACUUM INTO ?').run(copy);
    const db = new Database(copy, { readonly: true });
    try {
      const found = db
        .prepare("SELECT a.title FROM alerts_fts f JOIN alerts a ON a.rowid = f.rowid WHERE alerts_fts MATCH ? ORDER BY f.rowid DESC")
        .pluck()
        .all('"probe"');
      expect(found).toEqual(['delta probe', 'charlie probe', 'alpha probe']);
      expect(db.prepare("SELECT count(*) FROM alerts_fts WHERE alerts_fts MATCH '\"charlie\"'").pluck().get()).toBe(1);
    } finally {
      db.close();
    }
  });
});

/**
 * New alerts are indexed for search after their commit (migration 0009,
 * src/db/sqlite/alert-store/search-indexer.ts), edits and deletes by triggers. These
 * are the cases that split introduces: a row edited or deleted before it was
 * indexed, a rowid reused after the newest alert was deleted, and the
 * background pass that indexes without any search asking.
 */
describe('search indexing after the commit', () => {
  it('finds an alert edited before it was indexed by its new text only, and never one deleted before it was indexed', async () => {
    const run = { title: 'Nightly export', workflow: { runId: 'r-1', state: 'running', steps: [{ name: 'extract', state: 'running' }] } };
    await post(seed.general.webhookToken, run);
    // Usually before the background pass (a timer) has run: the edit and the delete then meet unindexed rows.
    await post(seed.general.webhookToken, { ...run, workflow: { runId: 'r-1', state: 'failed', steps: [{ name: 'upload', state: 'failed' }], error: 'quota' } });
    const gone = await post(seed.general.webhookToken, { title: 'vanishing probe' });
    sqliteServicesOf(h.services).db.sqlite.prepare('DELETE FROM alerts WHERE id = ?').run(gone);
    expect(await titles('extract')).toEqual([]);
    expect(await titles('upload')).toEqual(['Nightly export']);
    expect(await titles('vanishing')).toEqual([]);
    expect(indexedRowids()).toEqual(storedRowids());
  });

  it('indexes an alert that reuses the rowid of a deleted newest alert', async () => {
    await post(seed.general.webhookToken, { title: 'first probe' });
    const newest = await post(seed.general.webhookToken, { title: 'second probe' });
    expect(await titles('probe')).toEqual(['second probe', 'first probe']); // both indexed now
    sqliteServicesOf(h.services).db.sqlite.prepare('DELETE FROM alerts WHERE id = ?').run(newest);
    await post(seed.general.webhookToken, { title: 'third probe' }); // SQLite hands out the deleted rowid again
    expect(indexedRowids()).toEqual(storedRowids());
    expect(await titles('probe')).toEqual(['third probe', 'first probe']);
    expect(await titles('second')).toEqual([]);
  });

  it('indexes new alerts shortly after their commit without a search asking', async () => {
    for (let i = 0; i < 5; i++) await post(seed.general.webhookToken, { title: `background ${i}` });
    await eventually(() => indexedRowids().length === 5, 'five indexed alerts', { seen: indexedRowids });
    expect(indexedRowids()).toEqual(storedRowids());
  });

  it('indexes, when a service opens the file, alerts a previous run stored but had not indexed yet', async () => {
    await post(seed.general.webhookToken, { title: 'left pending' });
    expect(indexedRowids()).toEqual([]);
    const dir = h.dir;
    await h.services.close();
    h = await startHarness({ engine: 'sqlite', dir });
    expect(indexedRowids()).toEqual(storedRowids());
    expect(indexedRowids()).toHaveLength(1);
  });
});
