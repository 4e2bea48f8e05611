import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/bodies.js';
import { createHarness, postAlert, seedWorkspace, type Harness } from '../helpers/harness.js';

// SQLite only: the FTS5 index's own tables (one docsize row per indexed rowid) and a backup copy made by VACUUM INTO.

let h: Harness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
beforeEach(async () => {
  h = createHarness();
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

describe('the SQLite search index', () => {
  it('holds exactly the stored alerts after a plain DELETE (as retention does) and a channel delete', async () => {
    await post(seed.general.webhookToken, { title: 'token leaked in log' });
    await post(seed.deploys.webhookToken, { title: 'token rotated' });
    const sqlite = h.services.db.sqlite;
    sqlite.prepare("DELETE FROM alerts WHERE title = 'token leaked in log'").run();
    expect(await titles('token')).toEqual(['token rotated']);
    sqlite.prepare('DELETE FROM channels WHERE id = ?').run(seed.deploys.id);
    expect(await titles('token')).toEqual([]);
    // The index itself holds exactly the stored alerts (one docsize row per indexed row), not just the joins above hiding the rest.
    const indexed = () => sqlite.prepare('SELECT id FROM alerts_fts_docsize ORDER BY id').pluck().all();
    expect(indexed()).toEqual(sqlite.prepare('SELECT rowid FROM alerts ORDER BY rowid').pluck().all());
    expect(indexed()).toEqual([]);
    await post(seed.general.webhookToken, { title: 'token again' });
    expect(await titles('token')).toEqual(['token again']);
  });

  it('survives a backup copy (VACUUM INTO): the index is keyed by rowids the copy keeps', async () => {
    for (const w of ['alpha', 'bravo', 'charlie', 'delta']) await post(seed.general.webhookToken, { title: `${w} probe` });
    const sqlite = h.services.db.sqlite;
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
