import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { judgeDatabase, type BackupResult, type DatabaseFacts } from './backup.js';
import { fsyncDir, isErrno, moveNoReplace, OpsRefusal } from './files.js';

/** Where the child process loads the SQLite driver from: the very module this build uses. */
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * The copy and the check, run by `node -e` in a child process. Plain CommonJS
 * so that it needs no TypeScript loader, whatever runs the service (tsx,
 * compiled JS, vitest). The queries mirror verifyDatabaseFile in backup.ts.
 */
const SNAPSHOT_SCRIPT = `
const [, driver, source, tmp] = process.argv;
const Database = require(driver);
const src = new Database(source, { fileMustExist: true });
src.pragma('busy_timeout = 5000');
src.prepare('VACUUM INTO ?').run(tmp);
src.close();
const db = new Database(tmp, { readonly: true, fileMustExist: true });
const integrity = db.pragma('integrity_check').map((r) => r.integrity_check);
const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
const ours = ['alerts', '__drizzle_migrations'].every((t) => tables.includes(t));
const facts = {
  integrity,
  tables,
  // A file-level check of a COPY of the database (never the live one): outside the alert store on purpose.
  alerts: ours ? db.prepare('SELECT count(*) FROM alerts').pluck().get() : null,
  newestMigration: ours ? db.prepare('SELECT max(created_at) FROM __drizzle_migrations').pluck().get() : null,
};
db.close();
process.stdout.write(JSON.stringify(facts));
`;

/**
 * backupDatabase (backup.ts) for a caller that must not block its event loop:
 * the service's scheduled backups. `VACUUM INTO` and `PRAGMA integrity_check`
 * run in a child process on its own connection, reading a WAL snapshot as the
 * admin CLI does; only the final fsync, link and rename happen here. Same
 * guarantees: consistent, checked, never a half file under `target`, never
 * overwrites.
 */
export async function backupInChildProcess(dbFile: string, target: string): Promise<BackupResult> {
  const started = performance.now();
  const file = path.resolve(target);
  if (fs.existsSync(file)) throw new OpsRefusal(`${file} already exists; a backup never overwrites a file, choose a new name`);
  const dir = path.dirname(file);
  await fsp.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    const facts = await runSnapshot(dbFile, tmp);
    const { alerts } = judgeDatabase(tmp, facts);
    const fh = await fsp.open(tmp, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (!moveNoReplace(tmp, file)) throw new OpsRefusal(`${file} appeared while the backup ran; it was left alone`);
    fsyncDir(dir);
    return { file, bytes: (await fsp.stat(file)).size, alerts, tookMs: Math.round(performance.now() - started) };
  } finally {
    await fsp.unlink(tmp).catch((err: unknown) => {
      if (!isErrno(err, 'ENOENT')) throw err;
    });
  }
}

function runSnapshot(dbFile: string, tmp: string): Promise<DatabaseFacts> {
  return new Promise((resolve, reject) => {
    // An empty environment: the child needs nothing of ours, and gets no secret it could print.
    const child = spawn(process.execPath, ['-e', SNAPSHOT_SCRIPT, DRIVER, dbFile, tmp], { stdio: ['ignore', 'pipe', 'pipe'], env: {} });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`backup process failed (${signal ?? `exit ${code}`}): ${lastErrorLine(err)}`));
      try {
        // The one cast on a query result in src/ops: the facts come from our own SNAPSHOT_SCRIPT above, which
        // prints exactly a DatabaseFacts; judgeDatabase then checks what they mean before a backup is kept.
        resolve(JSON.parse(out) as DatabaseFacts);
      } catch {
        reject(new Error(`backup process printed no result: ${out.slice(0, 200)}`));
      }
    });
  });
}

/** The `SqliteError: …` line of a Node stack trace, not the whole trace. */
function lastErrorLine(stderr: string): string {
  return stderr.split('\n').find((l) => /Error\b/.test(l))?.trim() ?? stderr.trim().slice(0, 300);
}
