import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dirHash } from './dir-hash.js';

/**
 * A SQLite file migrated with this tree's drizzle/ (its files' hash in the name), made once per run
 * by test/db-templates.ts. A harness copies it into its data directory before the service opens it:
 * a copy takes under a millisecond where migrating a new file took 50–200 ms, and the suite starts
 * the service some thousand times. The service then finds nothing to migrate, as after a restart.
 */
export function migratedSqliteTemplate(): string {
  return path.join(os.tmpdir(), `alertbridge-test-template-${dirHash(path.resolve(import.meta.dirname, '../../drizzle'))}.db`);
}

/** Puts a copy of the template where `dbFile` will be opened, when there is no database there yet and the run made one. */
export function seedFromSqliteTemplate(dbFile: string): void {
  const template = migratedSqliteTemplate();
  if (fs.existsSync(dbFile) || !fs.existsSync(template)) return;
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  fs.copyFileSync(template, dbFile);
}
