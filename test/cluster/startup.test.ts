import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { tempDir } from '../helpers/harness.js';

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

describe('DATABASE_URL while cluster mode is incomplete', () => {
  it('npm start with DATABASE_URL refuses to start, says why, and creates no SQLite file', async () => {
    dir = tempDir();
    const { code, output } = await startToExit({ DATA_DIR: dir, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/none' });
    expect(code).toBe(2);
    expect(output).toContain('running the service on PostgreSQL (cluster mode) is not complete yet');
    expect(fs.existsSync(path.join(dir, 'alertbridge.db'))).toBe(false);
  });

  it('a DATABASE_URL that is not a postgres:// URL is a configuration error', async () => {
    dir = tempDir();
    const { code, output } = await startToExit({ DATA_DIR: dir, DATABASE_URL: 'mysql://root@localhost/db' });
    expect(code).toBe(2);
    expect(output).toContain('DATABASE_URL: a postgres:// (or postgresql://) URL');
  });

  it('admin commands other than export/import refuse instead of quietly using SQLite', async () => {
    dir = tempDir();
    const res = await runAdmin(['token', 'list', '--workspace', 'w1'], { DATA_DIR: dir, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/none' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('only `export` and `import` work on PostgreSQL so far');
    expect(fs.existsSync(path.join(dir, 'alertbridge.db'))).toBe(false);
  });
});
