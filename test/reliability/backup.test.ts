import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { startBackground } from '../../src/runtime.js';
import { listBackups } from '../../src/ops/backup-scheduler.js';
import { backupInChildProcess } from '../../src/ops/backup-process.js';
import { startHarness, listen, seedWorkspace, tempDir } from '../helpers/harness.js';
import { png } from '../media/fixtures.js';
import { runAdminProcess } from '../helpers/spawned-service.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dataDir(): string {
  const dir = tempDir('alertbridge-backup-');
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The real services and app on `dir`, served over loopback HTTP; stop() keeps DATA_DIR (a service stop). */
async function serve(dir: string, env: Record<string, string> = {}) {
  const h = await startHarness({ engine: 'sqlite', dir, env });
  const server = await listen(h.app.fetch);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.close();
    await h.services.close();
  };
  cleanups.push(stop);
  return { h, url: server.url, stop };
}

const admin = (dir: string, ...argv: string[]) => runAdmin(argv, { DATA_DIR: dir, LOG_LEVEL: 'silent' });

function alertIdsIn(file: string): Set<string> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return new Set(db.prepare('SELECT id FROM alerts').pluck().all() as string[]);
  } finally {
    db.close();
  }
}

function integrity(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

async function postAlert(url: string, token: string, title: string): Promise<string | null> {
  const res = await fetch(`${url}/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
  const body = (await res.json()) as { alertId?: string };
  return res.status === 201 ? body.alertId! : null;
}

describe('backup while the service runs', () => {
  it('copies a consistent snapshot from another process while webhooks keep arriving over HTTP', async () => {
    const dir = dataDir();
    const { h, url } = await serve(dir);
    const seed = await seedWorkspace(h.services);
    const answered: string[] = [];
    let posting = true;
    const poster = async (n: number) => {
      for (let i = 0; posting; i++) {
        const id = await postAlert(url, seed.general.webhookToken, `poster ${n} #${i}`);
        if (id) answered.push(id);
      }
    };
    const posters = Array.from({ length: 8 }, (_, n) => poster(n));
    await expect.poll(() => answered.length, { timeout: 10_000 }).toBeGreaterThan(300);

    const file = path.join(dir, 'copies', 'live.db');
    const before = [...answered]; // every alert answered 201 before the backup started
    const run = await runAdminProcess(dir, ['backup', '--to', file]);
    const during = answered.length - before.length;
    posting = false;
    await Promise.all(posters);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { file: string; bytes: number; alerts: number; tookMs: number };
    expect(printed.file).toBe(file);
    expect(printed.bytes).toBe(fs.statSync(file).size);
    expect(printed.tookMs).toBeGreaterThanOrEqual(0);
    expect(during).toBeGreaterThan(0); // the server kept answering while the CLI process ran
    expect(integrity(file)).toBe('ok');
    const copied = alertIdsIn(file);
    expect(copied.size).toBe(printed.alerts);
    expect(before.filter((id) => !copied.has(id))).toEqual([]);
    // No temp file left beside the copy.
    expect(fs.readdirSync(path.dirname(file))).toEqual(['live.db']);
  });

  it('refuses to overwrite an existing file (exit 2) and leaves it untouched', async () => {
    const dir = dataDir();
    const target = path.join(dir, 'exists.db');
    fs.writeFileSync(target, 'precious');
    const res = await admin(dir, 'backup', '--to', target);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('already exists');
    expect(res.stdout).toBe('');
    expect(fs.readFileSync(target, 'utf8')).toBe('precious');
    expect(fs.readdirSync(dir).filter((n) => n.includes('exists'))).toEqual(['exists.db']);
  });
});

describe('restore', () => {
  it('round trip: back up, keep posting, stop, restore, start, and read back exactly the backed-up alerts', async () => {
    const dir = dataDir();
    const first = await serve(dir);
    const seed = await seedWorkspace(first.h.services);
    const kept = [];
    for (let i = 0; i < 20; i++) kept.push(await postAlert(first.url, seed.general.webhookToken, `before ${i}`));
    const file = path.join(dataDir(), 'round-trip.db');
    const backup = await admin(dir, 'backup', '--to', file);
    expect(backup.code).toBe(0);
    const lost = await postAlert(first.url, seed.general.webhookToken, 'after the backup');

    // The server has the database open: restore refuses and changes nothing.
    const refused = await runAdminProcess(dir, ['restore', '--from', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('in use');
    expect(fs.readdirSync(dir).filter((n) => n.includes('before-restore'))).toEqual([]);

    await first.stop();
    fs.writeFileSync(`${dir}/alertbridge.db-shm`, 'stale'); // a leftover that must not be paired with the restored file
    const restored = await runAdminProcess(dir, ['restore', '--from', file]);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    const out = JSON.parse(restored.stdout) as { restored: string; previous: string; alerts: number };
    expect(out.restored).toBe(path.join(dir, 'alertbridge.db'));
    expect(out.alerts).toBe(20);
    expect(path.basename(out.previous)).toMatch(/^alertbridge\.db\.before-restore-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z$/);
    // The previous database is whole on its own (its WAL was folded in) and still has the later alert.
    expect(integrity(out.previous)).toBe('ok');
    expect(alertIdsIn(out.previous).has(lost!)).toBe(true);
    expect(fs.existsSync(`${dir}/alertbridge.db-wal`)).toBe(false);
    expect(fs.existsSync(`${dir}/alertbridge.db-shm`)).toBe(false);

    const second = await serve(dir);
    const res = await fetch(`${second.url}/api/channels/general/alerts?limit=100`, { headers: { authorization: `Bearer ${seed.ownerToken}` } });
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as { alerts: { id: string }[] }).alerts.map((a) => a.id);
    expect(ids.sort()).toEqual([...kept].sort());
    expect(ids).not.toContain(lost);
    // The restored service takes new alerts.
    expect(await postAlert(second.url, seed.general.webhookToken, 'after the restore')).toMatch(/.+/);
  });

  it('restores into an empty DATA_DIR (no previous database to keep)', async () => {
    const source = dataDir();
    const { h, stop } = await serve(source);
    await seedWorkspace(h.services);
    const file = path.join(source, 'b.db');
    expect((await admin(source, 'backup', '--to', file)).code).toBe(0);
    await stop();
    const fresh = dataDir();
    const res = await admin(fresh, 'restore', '--from', file);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).previous).toBeNull();
    expect(integrity(path.join(fresh, 'alertbridge.db'))).toBe('ok');
  });

  it('refuses files that are missing, not databases, damaged, not ours, or from a newer version, and leaves the database alone', async () => {
    const dir = dataDir();
    const { h, stop } = await serve(dir);
    await seedWorkspace(h.services);
    await stop();
    const dbBefore = fs.readFileSync(path.join(dir, 'alertbridge.db'));
    const other = dataDir();
    const make = (name: string, build: (db: Database.Database) => void) => {
      const file = path.join(other, name);
      const db = new Database(file);
      build(db);
      db.close();
      return file;
    };
    const good = path.join(other, 'good.db');
    expect((await admin(dir, 'backup', '--to', good)).code).toBe(0);

    // Opens, but an index disagrees with its table: only PRAGMA integrity_check can tell.
    const inconsistent = path.join(other, 'inconsistent.db');
    fs.copyFileSync(good, inconsistent);
    const i = new Database(inconsistent);
    i.unsafeMode(true); // better-sqlite3 forbids writable_schema otherwise
    i.pragma('writable_schema = ON');
    i.prepare("UPDATE sqlite_master SET sql = 'CREATE UNIQUE INDEX channels_webhook_token_uq ON channels (webhook_token DESC)' WHERE name = 'channels_webhook_token_uq'").run();
    i.close();
    // Torn pages, header intact: the file is recognised as SQLite but cannot be read.
    const torn = path.join(other, 'torn.db');
    const bytes = fs.readFileSync(good);
    const pageSize = bytes.readUInt16BE(16);
    for (let p = 2; p * pageSize < bytes.length; p += 3) bytes.fill(0x5a, p * pageSize + 8, p * pageSize + 200);
    fs.writeFileSync(torn, bytes);

    const newer = path.join(other, 'newer.db');
    fs.copyFileSync(good, newer);
    const n = new Database(newer);
    n.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('from-the-future', Date.UTC(2099, 0, 1));
    n.close();

    fs.writeFileSync(path.join(other, 'text.db'), 'not a database at all, just text '.repeat(200));
    const cases: [string, RegExp][] = [
      [path.join(other, 'missing.db'), /does not exist/],
      [path.join(other, 'text.db'), /not a (readable )?database/],
      [inconsistent, /fails PRAGMA integrity_check/],
      // Where the cut lands decides SQLite's words (a malformed page, or an FTS5 segment that no longer parses).
      [torn, /malformed|invalid fts5 file format/],
      [make('foreign.db', (db) => db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY)')), /not an Alertbridge database/],
      [newer, /newer Alertbridge/],
    ];
    for (const [file, message] of cases) {
      const res = await admin(dir, 'restore', '--from', file);
      expect({ file: path.basename(file), code: res.code }).toEqual({ file: path.basename(file), code: 2 });
      expect(res.stderr).toMatch(message);
    }
    expect(fs.readFileSync(path.join(dir, 'alertbridge.db')).equals(dbBefore)).toBe(true);
    expect(fs.readdirSync(dir).filter((f) => f.includes('before-restore') || f.startsWith('.restore'))).toEqual([]);
  });
});

describe('stats', () => {
  it('reports database and media bytes, and alerts and media per workspace and channel', async () => {
    const dir = dataDir();
    const { h, url } = await serve(dir);
    const seed = await seedWorkspace(h.services);
    const att = (b: Buffer) => [{ data: b.toString('base64') }];
    const post = (token: string, attachments: object[] = []) =>
      fetch(`${url}/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 't', attachments }) });
    expect((await post(seed.general.webhookToken, att(png(1)))).status).toBe(201);
    expect((await post(seed.general.webhookToken, att(png(1)))).status).toBe(201); // same bytes: one file
    expect((await post(seed.deploys.webhookToken, att(png(1)))).status).toBe(201);
    expect((await post(seed.deploys.webhookToken, att(png(2)))).status).toBe(201);
    expect((await post(seed.deploys.webhookToken)).status).toBe(201);
    const size = (b: Buffer) => b.byteLength;

    const res = await admin(dir, 'stats');
    expect(res.code).toBe(0);
    const stats = JSON.parse(res.stdout);
    expect(stats.database.bytes).toBe(fs.statSync(path.join(dir, 'alertbridge.db')).size);
    expect(stats.database.walBytes).toBeGreaterThan(0); // the server is running: its WAL holds the recent writes
    expect(stats.media).toEqual({ bytes: size(png(1)) + size(png(2)), files: 2 });
    const acme = stats.workspaces.find((w: { id: string }) => w.id === seed.ws.id);
    expect(acme).toMatchObject({ name: 'Acme', alerts: 5, mediaBytes: size(png(1)) + size(png(2)) });
    const bySlug = Object.fromEntries(acme.channels.map((c: { slug: string }) => [c.slug, c]));
    expect(bySlug.general).toMatchObject({ id: seed.general.id, alerts: 2, mediaBytes: size(png(1)) });
    expect(bySlug.deploys).toMatchObject({ id: seed.deploys.id, alerts: 3, mediaBytes: size(png(1)) + size(png(2)) });
    expect(bySlug.security).toMatchObject({ alerts: 0, mediaBytes: 0 });
    const otherWs = stats.workspaces.find((w: { id: string }) => w.id === seed.other.id);
    expect(otherWs).toMatchObject({ alerts: 0, mediaBytes: 0, channels: [{ id: seed.otherChannel.id, alerts: 0, mediaBytes: 0 }] });
  });
});

describe('scheduled backups', () => {
  it('copy and check run in a child process: same result as the CLI, same refusals, no temp file left', async () => {
    const dir = dataDir();
    const { h, url } = await serve(dir);
    const seed = await seedWorkspace(h.services);
    for (let i = 0; i < 5; i++) await postAlert(url, seed.general.webhookToken, `a${i}`);
    const target = path.join(dir, 'copies', 'child.db');
    const result = await backupInChildProcess(h.config.dbFile, target);
    expect(result).toMatchObject({ file: target, alerts: 5, bytes: fs.statSync(target).size });
    expect(integrity(target)).toBe('ok');
    await expect(backupInChildProcess(h.config.dbFile, target)).rejects.toThrow(/already exists/);
    await expect(backupInChildProcess(path.join(dir, 'missing.db'), path.join(dir, 'copies', 'never.db'))).rejects.toThrow(/backup process failed.*SqliteError/);
    expect(fs.readdirSync(path.join(dir, 'copies'))).toEqual(['child.db']);
  });

  it('BACKUP_INTERVAL_HOURS starts a scheduler with the service that keeps the newest BACKUP_KEEP copies', async () => {
    const dir = dataDir();
    // 0.00002 h = 72 ms: a short interval through the real configuration path.
    const { h } = await serve(dir, { BACKUP_INTERVAL_HOURS: '0.00002', BACKUP_KEEP: '2' });
    await seedWorkspace(h.services);
    const runtime = await startBackground(h.services);
    let stopped = false;
    cleanups.push(() => stopped || runtime.stop());
    const backups = path.join(dir, 'backups');
    await expect.poll(() => listBackups(backups).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const firstSeen = listBackups(backups)[0]!;
    // A third run has happened once the first name is gone: keep=2 pruned it.
    await expect
      .poll(() => {
        const names = listBackups(backups);
        return !names.includes(firstSeen) && names.length === 2;
      }, { timeout: 10_000 })
      .toBe(true);
    stopped = true;
    await runtime.stop();
    const names = listBackups(backups);
    expect(names).toHaveLength(2);
    for (const n of names) expect(integrity(path.join(backups, n))).toBe('ok');
    expect(fs.readdirSync(backups).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});
