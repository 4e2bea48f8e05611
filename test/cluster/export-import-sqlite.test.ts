import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { startHarness } from '../helpers/harness.js';
import { installationCleanup, makeInstallation, whatUsersSee } from './installation.js';

/** `admin export` / `admin import` between SQLite files (PostgreSQL: export-import-pg.test.ts). */
const { dir, track } = installationCleanup();

describe('moving a SQLite installation to another SQLite file', () => {
  it('exports while the service runs, imports into a new file, and users see the same channels, alerts and read state', async () => {
    const { h, seed, revokedToken } = await makeInstallation(dir());
    track(h);
    const before = await whatUsersSee(h, [seed.ownerToken, seed.memberToken]);
    const file = path.join(dir(), 'acme.ndjson');

    const exported = await runAdmin(['export', '--to', file], { DATA_DIR: h.dir });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const ex = JSON.parse(exported.stdout);
    expect(ex.tables.alerts.rows).toBe(7);
    expect(ex.tables.api_tokens.rows).toBe(4);
    expect(ex.tables.read_exceptions.rows + ex.tables.read_marks.rows).toBeGreaterThanOrEqual(2);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);

    const targetDir = dir();
    const imported = await runAdmin(['import', '--from', file], { DATA_DIR: targetDir });
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const im = JSON.parse(imported.stdout);
    expect(im.verified).toBe(true);
    expect(im.tables).toEqual(ex.tables);
    expect(im.rows).toBe(ex.rows);

    const moved = track(await startHarness({ engine: 'sqlite', dir: targetDir }));
    expect(await whatUsersSee(moved, [seed.ownerToken, seed.memberToken])).toEqual(before);
    expect((await moved.call('GET', '/api/channels', { token: revokedToken })).status).toBe(401);
    // Ids and sequences continue past the imported ones: a new alert is stored and listed first.
    const post = await moved.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'after the move' } });
    expect(post.status).toBe(201);
    const page = await (await moved.call('GET', '/api/channels/general/alerts', { token: seed.ownerToken })).json();
    expect(page.alerts[0].title).toBe('after the move');
  });

  it('refuses a target that is not empty, and changes nothing in it', async () => {
    const { h, seed } = await makeInstallation(dir());
    track(h);
    const file = path.join(dir(), 'x.ndjson');
    expect((await runAdmin(['export', '--to', file], { DATA_DIR: h.dir })).code).toBe(0);
    const res = await runAdmin(['import', '--from', file], { DATA_DIR: h.dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/is not empty \(rows in workspaces, .*alerts/);
    expect(await h.services.accounts.listTokens(seed.ws.id)).toHaveLength(3);
  });

  it('refuses a damaged or truncated file, and leaves no database behind', async () => {
    const { h } = await makeInstallation(dir());
    track(h);
    const file = path.join(dir(), 'x.ndjson');
    expect((await runAdmin(['export', '--to', file], { DATA_DIR: h.dir })).code).toBe(0);
    const text = fs.readFileSync(file, 'utf8');

    const damaged = path.join(dir(), 'damaged.ndjson');
    fs.writeFileSync(damaged, text.replace('Zebra deploy', 'Zebra deplox'));
    const target = path.join(dir(), 'new.db');
    const res = await runAdmin(['import', '--from', damaged, '--database-url', `sqlite:${target}`], {});
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/table alerts is damaged: 7 rows read, the file says 7; the checksums differ/);
    expect(fs.existsSync(target)).toBe(false);

    const cut = path.join(dir(), 'cut.ndjson');
    fs.writeFileSync(cut, text.split('\n').slice(0, -3).join('\n'));
    const res2 = await runAdmin(['import', '--from', cut, '--database-url', `sqlite:${target}`], {});
    expect(res2.code).toBe(1);
    expect(res2.stderr).toMatch(/incomplete|expected/);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('never overwrites: export to an existing file is a usage error', async () => {
    const { h } = await makeInstallation(dir());
    track(h);
    const file = path.join(dir(), 'exists.ndjson');
    fs.writeFileSync(file, 'keep me');
    const res = await runAdmin(['export', '--to', file], { DATA_DIR: h.dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('already exists');
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
    const bad = await runAdmin(['import', '--from', file, '--database-url', 'mysql://x'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--database-url takes postgres://');
  });
});
