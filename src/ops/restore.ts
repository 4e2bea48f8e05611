import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { verifyDatabaseFile } from './backup.js';
import { fsyncDir, fsyncFile, isErrno, OpsRefusal } from './files.js';

/** The migrations this build ships (same place as src/db/sqlite/connection.ts reads them from). */
const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');

/** What `restore` prints. */
export interface RestoreResult {
  restored: string;
  from: string;
  /** Where the database that was in place is kept; null when there was none. */
  previous: string | null;
  alerts: number;
  bytes: number;
  tookMs: number;
}

/**
 * Puts a backup in place of the database file. The service must be stopped:
 * the current database is opened with an exclusive lock first, which fails
 * while any other connection (the server, an admin command) has it open,
 * because every WAL-mode connection holds a shared lock for as long as it is
 * open. That lock also lets the WAL be checkpointed into the file, so the copy
 * kept as `<db>.before-restore-<timestamp>` is whole on its own.
 *
 * Crash-safe: the backup is copied to a temp name in the data directory and
 * renamed over the database in one step; the previous database keeps a second
 * name (a hard link) before that, so at every moment the database name holds
 * either the old or the new file, never a half one and never nothing.
 */
export function restoreDatabase(dbFile: string, from: string, now: Date = new Date()): RestoreResult {
  const started = performance.now();
  const source = path.resolve(from);
  if (!fs.existsSync(source)) throw new OpsRefusal(`${source} does not exist`);
  if (source === path.resolve(dbFile)) throw new OpsRefusal(`${source} is the database itself`);
  const verified = verifyDatabaseFile(source);
  const known = readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR });
  const newestKnown = Math.max(0, ...known.map((m) => m.folderMillis));
  if (verified.newestMigration > newestKnown) {
    throw new OpsRefusal(`${source} was written by a newer Alertbridge (its schema has migrations this build does not know); upgrade first`);
  }

  const dir = path.dirname(dbFile);
  fs.mkdirSync(dir, { recursive: true });
  const exists = fs.existsSync(dbFile);
  if (exists) checkpointExclusively(dbFile);

  const tmp = path.join(dir, `.restore-${process.pid}-${randomBytes(6).toString('hex')}`);
  let previous: string | null = null;
  try {
    fs.copyFileSync(source, tmp, fs.constants.COPYFILE_EXCL);
    fsyncFile(tmp);
    if (exists) {
      previous = `${dbFile}.before-restore-${stamp(now)}`;
      fs.linkSync(dbFile, previous);
    }
    // Stale companions: a -wal next to the new file would be replayed into it. The
    // checkpoint above emptied it; one it could not empty (damaged database) moves along.
    for (const suffix of ['-wal', '-shm']) {
      const companion = dbFile + suffix;
      if (previous && suffix === '-wal' && fs.existsSync(companion) && fs.statSync(companion).size > 0) {
        fs.renameSync(companion, previous + suffix);
      } else {
        removeIfExists(companion);
      }
    }
    fs.renameSync(tmp, dbFile);
    fsyncDir(dir);
  } finally {
    removeIfExists(tmp);
  }
  return { restored: dbFile, from: source, previous, alerts: verified.alerts, bytes: fs.statSync(dbFile).size, tookMs: Math.round(performance.now() - started) };
}

/**
 * Takes the exclusive lock (refusing when another connection has the file
 * open) and folds the WAL into the database file. A damaged database that
 * cannot be opened is no reason to refuse: restoring is how one recovers it.
 */
function checkpointExclusively(dbFile: string): void {
  let db: Database.Database | undefined;
  try {
    db = new Database(dbFile, { fileMustExist: true });
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new OpsRefusal(`${dbFile} is in use: stop the service (and any running admin command) before restoring`);
    }
    if (!code?.startsWith('SQLITE_')) throw err;
    // SQLITE_CORRUPT, SQLITE_NOTADB, ...: nothing can be serving this file; it is kept as before-restore.
  } finally {
    db?.close();
  }
}

function removeIfExists(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
}

/** 2026-11-23T13-05-09Z: sortable, and no colons (not allowed in Windows file names). */
function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-');
}
