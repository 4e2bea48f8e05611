import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { openServices } from '../../src/services.js';
import { callOf, testEngine, tempDir } from '../helpers/harness.js';
import { freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/** The admin CLI's `heartbeat …` commands on testEngine() (also run on PostgreSQL: vitest.config.ts ON_POSTGRES). */
let dir: string;
let fresh: FreshDatabase | undefined;
let env: Record<string, string>;
beforeEach(async () => {
  dir = tempDir();
  fresh = testEngine() === 'postgres' ? await freshDatabase() : undefined;
  env = { DATA_DIR: dir, LOG_LEVEL: 'silent', PUBLIC_URL: 'https://alerts.example.test', ...(fresh ? { DATABASE_URL: fresh.url, PG_POOL_MAX: '4' } : {}) };
});
afterEach(async () => {
  await fresh?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function admin<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const r = await runAdmin(argv, env);
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

interface Printed {
  id: string;
  slug: string;
  status: string;
  pingUrl: string;
  pingKey: string;
  slugPingUrl: string;
}

describe('admin CLI: heartbeat', () => {
  it('creates, lists, updates, pauses, resumes, rotates the ping key and deletes; the ping URL works', async () => {
    const ws = await admin<{ id: string }>('workspace', 'create', '--name', 'Acme');
    const ch = await admin<{ id: string }>('channel', 'create', '--workspace', ws.id, '--name', 'Backups');
    const created = await admin<Printed>('heartbeat', 'create', '--channel', ch.id, '--name', 'Nightly DB', '--cron', '0 3 * * *', '--tz', 'Europe/Berlin', '--grace', '30m');
    expect(created).toMatchObject({
      id: expect.stringMatching(/^hbc_/),
      slug: 'nightly-db',
      status: 'new',
      schedule: { cron: '0 3 * * *', tz: 'Europe/Berlin' },
      graceSeconds: 1800,
      pingUrl: expect.stringMatching(/^https:\/\/alerts\.example\.test\/ping\/[0-9a-f-]{36}$/),
      pingKey: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect(created.slugPingUrl).toBe(`https://alerts.example.test/ping/${created.pingKey}/nightly-db`);

    const list = await admin<{ pingKey: string; heartbeats: Printed[] }>('heartbeat', 'list', '--workspace', ws.id);
    expect(list.pingKey).toBe(created.pingKey);
    expect(list.heartbeats.map((c) => c.id)).toEqual([created.id]);

    // A new cron line keeps the zone; a period replaces the cron line.
    expect(await admin('heartbeat', 'update', '--id', created.id, '--cron', '15 4 * * *', '--grace', '14d')).toMatchObject({ schedule: { cron: '15 4 * * *', tz: 'Europe/Berlin' }, graceSeconds: 14 * 86_400 });
    expect(await admin('heartbeat', 'update', '--id', created.id, '--period', '1h', '--grace', '5m', '--slug', 'db')).toMatchObject({ slug: 'db', schedule: { period: 3600 }, graceSeconds: 300 });
    expect(await admin('heartbeat', 'pause', '--id', created.id)).toMatchObject({ status: 'paused' });
    expect(await admin('heartbeat', 'resume', '--id', created.id)).toMatchObject({ status: 'new' });

    // The printed URLs work against the same installation.
    const s = await openServices(loadConfig(env));
    try {
      const call = callOf(createApp(s));
      const uuid = created.pingUrl.split('/').pop()!;
      expect(await (await call('GET', `/ping/${uuid}`)).text()).toBe('OK');
      expect((await call('GET', `/ping/${created.pingKey}/db`)).status).toBe(200);
      const rotated = await admin<{ pingKey: string }>('heartbeat', 'rotate-ping-key', '--workspace', ws.id);
      expect(rotated.pingKey).not.toBe(created.pingKey);
      expect((await call('GET', `/ping/${created.pingKey}/db`)).status).toBe(404);
      expect((await call('GET', `/ping/${rotated.pingKey}/db`)).status).toBe(200);
    } finally {
      await s.close();
    }
    expect(await admin('heartbeat', 'list', '--channel', ch.id)).toMatchObject({ heartbeats: [{ status: 'up' }] });
    expect(await admin('heartbeat', 'delete', '--id', created.id)).toEqual({ id: created.id, deleted: true });
    expect(await admin('heartbeat', 'list', '--workspace', ws.id)).toMatchObject({ heartbeats: [] });
  });

  it('refuses bad schedules (exit 2) and unknown checks or a taken slug (exit 1)', async () => {
    const ws = await admin<{ id: string }>('workspace', 'create', '--name', 'Acme');
    const ch = await admin<{ id: string }>('channel', 'create', '--workspace', ws.id, '--name', 'Backups');
    const fails = async (code: number, ...argv: string[]) => {
      const r = await runAdmin(argv, env);
      expect(r.code, `${argv.join(' ')}: ${r.stdout}${r.stderr}`).toBe(code);
      expect(r.stdout).toBe('');
      return r.stderr;
    };
    expect(await fails(2, 'heartbeat', 'create', '--channel', ch.id, '--name', 'x', '--grace', '1m')).toMatch(/--period/);
    expect(await fails(2, 'heartbeat', 'create', '--channel', ch.id, '--name', 'x', '--period', '1h')).toMatch(/--grace/);
    expect(await fails(2, 'heartbeat', 'create', '--channel', ch.id, '--name', 'x', '--period', '90 minutes', '--grace', '1m')).toMatch(/period/);
    expect(await fails(2, 'heartbeat', 'create', '--channel', ch.id, '--name', 'x', '--cron', '0 3 * *', '--tz', 'UTC', '--grace', '1m')).toMatch(/cron/);
    expect(await fails(2, 'heartbeat', 'create', '--channel', ch.id, '--name', 'x', '--cron', '0 3 * * *', '--grace', '1m')).toMatch(/time zone/);
    await admin('heartbeat', 'create', '--channel', ch.id, '--name', 'x', '--period', '1s', '--grace', '1s');
    expect(await fails(1, 'heartbeat', 'create', '--channel', ch.id, '--name', 'x', '--period', '1m', '--grace', '1m')).toMatch(/slug/);
    expect(await fails(1, 'heartbeat', 'pause', '--id', 'hbc_00000000000000000000000000')).toMatch(/not found/);
  });
});
