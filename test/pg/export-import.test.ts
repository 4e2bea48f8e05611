import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { startHarness } from '../helpers/harness.js';
import { describePg, freshDatabase } from '../helpers/pg.js';
import { installationCleanup, makeInstallation, whatUsersSee } from '../cluster/installation.js';

/** Moving an installation SQLite → PostgreSQL → SQLite with `admin export` / `admin import`. */
const { cleanup, dir, track } = installationCleanup();

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describePg('moving an installation between SQLite and PostgreSQL', () => {
  it('SQLite → PostgreSQL keeps every row, token hash and read state; PostgreSQL → SQLite gives back the same checksums and the same API answers', async () => {
    const { h, seed, revokedToken } = await makeInstallation(dir());
    track(h);
    const before = await whatUsersSee(h, [seed.ownerToken, seed.memberToken]);
    const db = await freshDatabase();
    cleanup.push(() => db.drop());

    const file1 = path.join(dir(), 'from-sqlite.ndjson');
    const ex1 = await runAdmin(['export', '--to', file1], { DATA_DIR: h.dir });
    expect(ex1.code).toBe(0);
    const exported = JSON.parse(ex1.stdout);

    // Into PostgreSQL, named by DATABASE_URL as a node of the cluster would be configured.
    const im1 = await runAdmin(['import', '--from', file1], { DATA_DIR: dir(), DATABASE_URL: db.url });
    expect(im1.stderr).toBe('');
    expect(im1.code).toBe(0);
    const imported = JSON.parse(im1.stdout);
    expect(imported).toMatchObject({ verified: true, into: { engine: 'postgres' }, rows: exported.rows });
    expect(imported.tables).toEqual(exported.tables);
    expect(imported.into.database).not.toContain('@');

    // The rows themselves, read with plain SQL on PostgreSQL.
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const tokens = await query<{ token_hash: string; revoked: boolean }>(db.url, 'SELECT token_hash, revoked_at IS NOT NULL AS revoked FROM api_tokens');
    expect(tokens).toHaveLength(4);
    expect(tokens).toContainEqual({ token_hash: sha(seed.ownerToken), revoked: false });
    expect(tokens).toContainEqual({ token_hash: sha(revokedToken), revoked: true });
    const reads = await query<{ n: string }>(db.url, 'SELECT (SELECT count(*) FROM read_marks) + (SELECT count(*) FROM read_exceptions) AS n');
    expect(Number(reads[0]!.n)).toBe(exported.tables.read_marks.rows + exported.tables.read_exceptions.rows);
    const stats = await query<{ alert_count: string }>(db.url, 'SELECT alert_count FROM channel_stats WHERE channel_id = $1', [seed.general.id]);
    expect(stats.map((r) => Number(r.alert_count))).toEqual([5]);
    // The identity sequences continue past the imported ids.
    const next = await query<{ id: string }>(db.url, "INSERT INTO alert_events (channel_id, alert_id, type, created_at) VALUES ('c', 'a', 'alert.created', 1) RETURNING id");
    expect(Number(next[0]!.id)).toBeGreaterThan(exported.tables.alert_events.rows);
    await query(db.url, 'DELETE FROM alert_events WHERE id = $1', [next[0]!.id]);

    // Back out of PostgreSQL into a new SQLite file: the same digests, table by table.
    const file2 = path.join(dir(), 'from-pg.ndjson');
    const ex2 = await runAdmin(['export', '--to', file2], { DATA_DIR: dir(), DATABASE_URL: db.url });
    expect(ex2.stderr).toBe('');
    expect(JSON.parse(ex2.stdout).tables).toEqual(exported.tables);
    const targetDir = dir();
    const im2 = await runAdmin(['import', '--from', file2, '--database-url', `sqlite:${path.join(targetDir, 'alertbridge.db')}`], {});
    expect(im2.code).toBe(0);
    expect(JSON.parse(im2.stdout).tables).toEqual(exported.tables);

    const back = track(await startHarness({ engine: 'sqlite', dir: targetDir }));
    expect(await whatUsersSee(back, [seed.ownerToken, seed.memberToken])).toEqual(before);
    expect((await back.call('GET', '/api/channels', { token: revokedToken })).status).toBe(401);
  });

  it('refuses a PostgreSQL database that is not empty, and leaves it as it was', async () => {
    const { h } = await makeInstallation(dir());
    track(h);
    const db = await freshDatabase();
    cleanup.push(() => db.drop());
    const file = path.join(dir(), 'x.ndjson');
    expect((await runAdmin(['export', '--to', file], { DATA_DIR: h.dir })).code).toBe(0);
    expect((await runAdmin(['import', '--from', file, '--database-url', db.url], {})).code).toBe(0);
    const count = async () => Number((await query<{ n: string }>(db.url, 'SELECT count(*) AS n FROM alerts'))[0]!.n);
    expect(await count()).toBe(7);

    const again = await runAdmin(['import', '--from', file, '--database-url', db.url], {});
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is not empty \(rows in workspaces/);
    expect(await count()).toBe(7);
  });

  it('a damaged file leaves the PostgreSQL database empty (one transaction)', async () => {
    const { h } = await makeInstallation(dir());
    track(h);
    const db = await freshDatabase();
    cleanup.push(() => db.drop());
    const file = path.join(dir(), 'x.ndjson');
    expect((await runAdmin(['export', '--to', file], { DATA_DIR: h.dir })).code).toBe(0);
    const damaged = path.join(dir(), 'damaged.ndjson');
    // The last table's rows are damaged: everything before it was already inserted, and must roll back.
    fs.writeFileSync(damaged, fs.readFileSync(file, 'utf8').replace(/("end":"channel_stats","rows":)\d+/, '$199'));
    const res = await runAdmin(['import', '--from', damaged, '--database-url', db.url], {});
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('table channel_stats is damaged');
    expect(await query(db.url, 'SELECT id FROM workspaces')).toEqual([]);
  });
});
