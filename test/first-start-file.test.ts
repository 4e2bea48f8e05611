import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/harness.js';
import { describePg, freshDatabase, type FreshDatabase } from './helpers/pg.js';
import { eventually } from './helpers/poll.js';
import { freePort, healthy, logLines, spawnService, type SpawnedService } from './helpers/spawned-service.js';

/**
 * The first-start banner (owner's API token, webhook URL, sign-in link) as a real process under a
 * supervisor prints it: stdout is a pipe (a journal, `docker logs`), not a terminal, so the secrets
 * go to DATA_DIR/first-start.txt (0600) and stdout carries only the file's path.
 */
let dir: string | undefined;
let svc: SpawnedService | undefined;
let db: FreshDatabase | undefined;
afterEach(async () => {
  svc?.child.kill('SIGTERM');
  await svc?.exited;
  svc = undefined;
  await db?.drop();
  db = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function expectBannerInFileOnly(s: SpawnedService, dataDir: string) {
  const file = path.join(dataDir, 'first-start.txt');
  expect(s.bannerFile).toBe(file);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const banner = fs.readFileSync(file, 'utf8');
  // The banner as a terminal shows it, line for line.
  for (const label of ['Workspace   My workspace (ws_', 'Owner       ', 'Channel     #general (', 'Webhook URL http', 'API token   ab_', 'Dashboard   http', 'curl -X POST ', "-H 'Authorization: Bearer ab_"]) {
    expect(banner).toContain(label);
  }
  const token = s.apiToken!;
  const webhookSecret = s.webhookUrl!.split('/').pop()!;
  const linkSecret = /Dashboard\s+\S+\?t=(\S+)/.exec(banner)![1]!;
  const out = s.output();
  for (const secret of [token, webhookSecret, linkSecret]) expect(out).not.toContain(secret);
  expect(out).toContain(`are in ${file}`);
  for (const line of logLines(out)) expect(line).not.toContain(token);
  // The token in the file works.
  const res = await fetch(`${s.base}/api/channels`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
}

describe('first start with stdout not a terminal', () => {
  it('SQLite: writes the banner to DATA_DIR/first-start.txt (0600) and prints only its path; a second start writes nothing', async () => {
    dir = tempDir();
    svc = await spawnService({}, { dataDir: dir });
    await expectBannerInFileOnly(svc, dir);
    svc.child.kill('SIGTERM');
    await svc.exited;
    fs.rmSync(path.join(dir, 'first-start.txt'));
    svc = await spawnService({}, { dataDir: dir });
    expect(svc.bannerFile).toBeUndefined();
    expect(fs.existsSync(path.join(dir, 'first-start.txt'))).toBe(false);
  });
});

describe('first start on a terminal', () => {
  it('prints the banner as before and writes no file (util-linux `script` gives the process a terminal)', async () => {
    dir = tempDir();
    const port = await freePort();
    const child = spawn('script', ['-qec', `exec ${process.execPath} dist/main.js`, '/dev/null'], {
      env: { PATH: process.env.PATH, AVATAR_BASE_URL: '', LOG_LEVEL: 'warn', DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await eventually(async () => /API token\s+ab_[0-9a-f]{48}/.test(out) && (await healthy(`http://127.0.0.1:${port}`)), 'the banner on the terminal', { timeoutMs: 20_000 });
      expect(out).toContain('Alertbridge is set up. This is shown ONCE');
      expect(out).toMatch(/Webhook URL\s+http:\/\/localhost:\d+\/api\/webhook\/whk_/);
      expect(fs.existsSync(path.join(dir, 'first-start.txt'))).toBe(false);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describePg('first start on PostgreSQL with stdout not a terminal', () => {
  it('the node that bootstraps writes the file in its own DATA_DIR (made if missing); another node writes none', async () => {
    db = await freshDatabase();
    dir = tempDir();
    const first = path.join(dir, 'node-a');
    svc = await spawnService({ DATABASE_URL: db.url }, { dataDir: first });
    await expectBannerInFileOnly(svc, first);
    const second = path.join(dir, 'node-b');
    const other = await spawnService({ DATABASE_URL: db.url }, { dataDir: second });
    try {
      expect(other.bannerFile).toBeUndefined();
      expect(fs.existsSync(path.join(second, 'first-start.txt'))).toBe(false);
    } finally {
      other.child.kill('SIGTERM');
      await other.exited;
    }
  });
});
