import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, postAlert, seedWorkspace, type Harness } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

// SQLite only: the FTS5 index filled after the commit (PostgreSQL's search column is computed by the write itself).

/**
 * New alerts are indexed for search after their commit (migration 0009,
 * src/db/alert-store/search-indexer.ts), edits and deletes by triggers. These
 * are the cases that split introduces: a row edited or deleted before it was
 * indexed, a rowid reused after the newest alert was deleted, and the
 * background pass that indexes without any search asking.
 */

let h: Harness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
beforeEach(async () => {
  h = createHarness();
  seed = await seedWorkspace(h.services);
});
afterEach(async () => h?.close());

const post = async (payload: object) => {
  const r = await postAlert(h, seed.general.webhookToken, payload);
  expect(r.res.status).toBe(201);
  return r.body.alertId as string;
};
const titles = async (q: string) => {
  const res = await h.call('GET', `/api/search?q=${encodeURIComponent(q)}`, { token: seed.ownerToken });
  expect(res.status).toBe(200);
  return ((await res.json()) as { alerts: { title: string }[] }).alerts.map((a) => a.title);
};
/** The index holds exactly the stored alerts: one docsize row per indexed rowid. */
const indexedRowids = () => h.services.db.sqlite.prepare('SELECT id FROM alerts_fts_docsize ORDER BY id').pluck().all();
const storedRowids = () => h.services.db.sqlite.prepare('SELECT rowid FROM alerts ORDER BY rowid').pluck().all();

describe('search indexing after the commit', () => {
  it('finds an alert edited before it was indexed by its new text only, and never one deleted before it was indexed', async () => {
    const run = { title: 'Nightly export', workflow: { runId: 'r-1', state: 'running', steps: [{ name: 'extract', state: 'running' }] } };
    await post(run);
    // Usually before the background pass (a timer) has run: the edit and the delete then meet unindexed rows.
    await post({ ...run, workflow: { runId: 'r-1', state: 'failed', steps: [{ name: 'upload', state: 'failed' }], error: 'quota' } });
    const gone = await post({ title: 'vanishing probe' });
    h.services.db.sqlite.prepare('DELETE FROM alerts WHERE id = ?').run(gone);
    expect(await titles('extract')).toEqual([]);
    expect(await titles('upload')).toEqual(['Nightly export']);
    expect(await titles('vanishing')).toEqual([]);
    expect(indexedRowids()).toEqual(storedRowids());
  });

  it('indexes an alert that reuses the rowid of a deleted newest alert', async () => {
    await post({ title: 'first probe' });
    const newest = await post({ title: 'second probe' });
    expect(await titles('probe')).toEqual(['second probe', 'first probe']); // both indexed now
    h.services.db.sqlite.prepare('DELETE FROM alerts WHERE id = ?').run(newest);
    await post({ title: 'third probe' }); // SQLite hands out the deleted rowid again
    expect(indexedRowids()).toEqual(storedRowids());
    expect(await titles('probe')).toEqual(['third probe', 'first probe']);
    expect(await titles('second')).toEqual([]);
  });

  it('indexes new alerts shortly after their commit without a search asking', async () => {
    for (let i = 0; i < 5; i++) await post({ title: `background ${i}` });
    await eventually(() => indexedRowids().length === 5, 'five indexed alerts', { seen: indexedRowids });
    expect(indexedRowids()).toEqual(storedRowids());
  });

  it('indexes, when a service opens the file, alerts a previous run stored but had not indexed yet', async () => {
    await post({ title: 'left pending' });
    expect(indexedRowids()).toEqual([]);
    const dir = h.dir;
    h.services.close();
    h = createHarness({ dir });
    expect(indexedRowids()).toEqual(storedRowids());
    expect(indexedRowids()).toHaveLength(1);
  });
});
