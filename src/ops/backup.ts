import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fsyncDir, fsyncFile, moveNoReplace, OpsRefusal } from './files.js';

/** What `backup` prints. */
export interface BackupResult {
  file: string;
  bytes: number;
  /** Alerts in the copy (it holds every alert committed before the copy's snapshot). */
  alerts: number;
  tookMs: number;
}

/**
 * Takes a consistent online copy of the open database into `target`.
 *
 * `VACUUM INTO` rather than the backup API (better-sqlite3's `db.backup()`):
 * it copies inside one read transaction, so in WAL mode it sees one snapshot
 * and never blocks the server's writers, and it always finishes. The backup API
 * restarts from the first page whenever another connection writes, so an
 * admin CLI copying a database the server keeps writing to may never finish.
 * The copy is also compacted (no free pages) and in rollback-journal mode, a
 * single self-contained file.
 *
 * The copy is written under a temp name in the target directory, checked with
 * `PRAGMA integrity_check`, fsynced, and only then linked to its final name, so
 * a crash never leaves a half file under that name. An existing file is never
 * replaced (the link fails instead), even one created while the copy ran.
 */
export function backupDatabase(sqlite: Database.Database, target: string): BackupResult {
  const started = performance.now();
  const file = path.resolve(target);
  if (fs.existsSync(file)) throw new OpsRefusal(`${file} already exists; a backup never overwrites a file, choose a new name`);
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  // A dot name: an rsync or a `backups/` listing can tell it from a finished backup.
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    sqlite.prepare('VACUUM INTO ?').run(tmp);
    const { alerts } = verifyDatabaseFile(tmp);
    fsyncFile(tmp);
    if (!moveNoReplace(tmp, file)) throw new OpsRefusal(`${file} appeared while the backup ran; it was left alone`);
    fsyncDir(dir);
    return { file, bytes: fs.statSync(file).size, alerts, tookMs: Math.round(performance.now() - started) };
  } finally {
    // The temp name is gone after a successful move; after a failure it is removed here. A failure to remove it
    // must not hide the error that got us here (a throw in finally would), so the dot-file is left behind.
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* ENOENT after the move; anything else: the temp file stays */
    }
  }
}

/** The tables a file must have to be one of our databases. */
const REQUIRED_TABLES = ['__drizzle_migrations', 'workspaces', 'channels', 'alerts', 'alert_attachments'];

/** What a verified database file holds. */
export interface VerifiedDatabase {
  alerts: number;
  /** `created_at` of the newest migration applied to it (drizzle's folderMillis). */
  newestMigration: number;
}

/**
 * What a read-only look at a database file found. The same four queries run in
 * backup-process.ts (in another process); keep them in step.
 */
export interface DatabaseFacts {
  /** `PRAGMA integrity_check` rows: exactly ['ok'] for a sound file. */
  integrity: string[];
  tables: string[];
  alerts: number | null;
  newestMigration: number | null;
}

/**
 * Opens a file read-only and proves it is a whole Alertbridge database:
 * `PRAGMA integrity_check` says ok and our tables are there.
 */
export function verifyDatabaseFile(file: string): VerifiedDatabase {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new OpsRefusal(`${file} cannot be opened as a database: ${(err as Error).message}`);
  }
  try {
    let integrity: string[];
    try {
      integrity = db.prepare<[], string>('PRAGMA integrity_check').pluck().all();
    } catch (err) {
      throw new OpsRefusal(`${file} is not a readable database: ${(err as Error).message}`);
    }
    const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    const ours = REQUIRED_TABLES.every((t) => tables.includes(t));
    return judgeDatabase(file, {
      integrity,
      tables,
      // A file-level check of a COPY of the database (never the live one): outside the alert store on purpose.
      // count(*) always yields one row; `?? 0` only satisfies the statement's `| undefined`.
      alerts: ours ? (db.prepare<[], number>('SELECT count(*) FROM alerts').pluck().get() ?? 0) : null,
      newestMigration: ours ? (db.prepare<[], number | null>('SELECT max(created_at) FROM __drizzle_migrations').pluck().get() ?? null) : null,
    });
  } finally {
    db.close();
  }
}

/** Turns the facts about a file into a verdict: its contents, or an OpsRefusal saying what is wrong. */
export function judgeDatabase(file: string, facts: DatabaseFacts): VerifiedDatabase {
  if (facts.integrity.length !== 1 || facts.integrity[0] !== 'ok') {
    throw new OpsRefusal(`${file} fails PRAGMA integrity_check: ${facts.integrity.slice(0, 5).join('; ')}`);
  }
  const missing = REQUIRED_TABLES.filter((t) => !facts.tables.includes(t));
  if (missing.length) throw new OpsRefusal(`${file} is not an Alertbridge database (no table ${missing.join(', ')})`);
  return { alerts: facts.alerts ?? 0, newestMigration: facts.newestMigration ?? 0 };
}
