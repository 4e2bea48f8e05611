import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../src/cli/admin.js';
import { startHarness, tempDir, type Harness } from './helpers/harness.js';

// SQLite only: the CLI's file in DATA_DIR, and the server's data_version check that sees the CLI's commit before its very next request (PostgreSQL: cli.test.ts, within the notification's milliseconds).

let dir: string;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function admin<T = { id: string }>(...argv: string[]): Promise<T> {
  const r = await runAdmin(argv, { DATA_DIR: dir, LOG_LEVEL: 'silent' });
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as T;
}

describe('admin CLI on the SQLite file', () => {
  it('creates the database file in DATA_DIR, and a webhook it rotates is refused by the running server on its very next request', async () => {
    dir = tempDir();
    const ws = await admin('workspace', 'create', '--name', 'Acme');
    expect(fs.existsSync(path.join(dir, 'alertbridge.db'))).toBe(true);
    const ch = await admin<{ id: string; webhookToken: string }>('channel', 'create', '--workspace', ws.id, '--name', 'Ops');

    h = await startHarness({ engine: 'sqlite', dir });
    // The server has the channel cached (it took a POST); the rotation is committed by the CLI's own connection.
    expect((await h.call('POST', `/api/webhook/${ch.webhookToken}`, { json: { title: 'x' } })).status).toBe(201);
    const rotated = await admin<{ webhookToken: string }>('channel', 'rotate-webhook', '--channel', ch.id);
    expect((await h.call('POST', `/api/webhook/${ch.webhookToken}`, { json: { title: 'x' } })).status).toBe(404);
    expect((await h.call('POST', `/api/webhook/${rotated.webhookToken}`, { json: { title: 'x' } })).status).toBe(201);
  });
});
