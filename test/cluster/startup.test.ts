import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { bodyOf } from '../helpers/bodies.js';
import { tempDir } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';
import { logLines, runAdminProcess, spawnService, type SpawnedService } from '../helpers/spawned-service.js';

/** What `npm start` runs (test/global-setup.ts builds dist/), to its exit. */
function startToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/main.js'], {
      env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', AVATAR_BASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('DATABASE_URL that cannot be used', () => {
  it('a DATABASE_URL that is not a postgres:// URL is a configuration error', async () => {
    dir = tempDir();
    const { code, output } = await startToExit({ DATA_DIR: dir, DATABASE_URL: 'mysql://root@localhost/db' });
    expect(code).toBe(2);
    expect(output).toContain('DATABASE_URL: a postgres:// (or postgresql://) URL');
  });

  it('npm start with an unreachable PostgreSQL fails to start with the reason, and never falls back to a SQLite file', async () => {
    dir = tempDir();
    const { code, output } = await startToExit({ DATA_DIR: dir, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(code).toBe(1);
    expect(output).toContain('alertbridge: failed to start');
    expect(output).toContain('ECONNREFUSED');
    expect(fs.existsSync(path.join(dir, 'alertbridge.db'))).toBe(false);
  });
});

describePg('npm start on PostgreSQL (dist/main.js with DATABASE_URL)', () => {
  let db: FreshDatabase;
  let svc: SpawnedService | undefined;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    svc?.child.kill('SIGKILL');
    await db.drop();
  });

  it('migrates, bootstraps once, answers /healthz, /readyz and a webhook POST, streams nothing from SQLite, and stops on SIGTERM with its connections closed', async () => {
    dir = tempDir();
    svc = await spawnService({ DATABASE_URL: db.url, LOG_LEVEL: 'info' }, { dataDir: dir });
    const out = svc.output();
    expect(out).toContain('PostgreSQL migrations applied');
    const listening = await eventually(
      () => logLines(svc!.output()).map((l) => JSON.parse(l) as { msg?: string; database?: string }).find((l) => l.msg === 'alertbridge listening'),
      'the listening log line',
    );
    expect(listening.database).toBe('postgres');
    const token = svc.apiToken!;
    const webhook = svc.webhookUrl!;
    expect(webhook).toContain('/api/webhook/whk_');
    // No secret in any log line.
    for (const line of logLines(out)) {
      expect(line).not.toContain(token);
      expect(line).not.toContain(webhook.split('/').pop()!);
    }
    expect((await fetch(`${svc.base}/readyz`)).status).toBe(200);
    const post = await fetch(webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Hello from a node', level: 'success' }) });
    expect(post.status).toBe(201);
    const list = await fetch(`${svc.base}/api/channels/general/alerts`, { headers: { authorization: `Bearer ${token}` } });
    expect((await bodyOf.page(list)).alerts[0]?.title).toBe('Hello from a node');

    // The row is in PostgreSQL, read by another connection; no SQLite file was made.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ title: string }>('SELECT title FROM alerts');
      expect(rows.map((r) => r.title)).toEqual(['Hello from a node']);
      const before = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
      expect(Number(before.rows[0]!.n)).toBeGreaterThanOrEqual(3); // pool + LISTEN + leader lock at least

      svc.child.kill('SIGTERM');
      expect(await svc.exited).toBe(0);
      svc = undefined;
      const after = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
      expect(Number(after.rows[0]!.n)).toBe(0);
    } finally {
      await client.end();
    }
    expect(fs.existsSync(path.join(dir, 'alertbridge.db'))).toBe(false);

    // A second start on the same database: nothing to migrate, no second bootstrap.
    svc = await spawnService({ DATABASE_URL: db.url, LOG_LEVEL: 'info' }, { dataDir: dir });
    expect(svc.output()).toContain('PostgreSQL schema up to date');
    expect(svc.output()).not.toContain('API token');
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
    svc = undefined;
  });

  it('the admin CLI works against it; the commands on the SQLite file refuse with exit 2', async () => {
    dir = tempDir();
    const env = { DATABASE_URL: db.url };
    const ws = await runAdmin(['workspace', 'create', '--name', 'CLI on PG'], { DATA_DIR: dir, ...env });
    expect(ws.code).toBe(0);
    const { id } = JSON.parse(ws.stdout) as { id: string };
    const ch = await runAdminProcess(dir, ['channel', 'create', '--workspace', id, '--name', 'Ops'], env);
    expect(ch.code).toBe(0);
    expect(JSON.parse(ch.stdout)).toMatchObject({ slug: 'ops', isPrivate: false });
    for (const args of [['backup', '--to', path.join(dir, 'b.db')], ['stats'], ['restore', '--from', path.join(dir, 'b.db')]]) {
      const res = await runAdmin(args, { DATA_DIR: dir, ...env });
      expect(res.code, args[0]).toBe(2);
      expect(res.stderr).toContain('DATABASE_URL is set (PostgreSQL)');
    }
    expect(fs.existsSync(path.join(dir, 'alertbridge.db'))).toBe(false);
  });
});
