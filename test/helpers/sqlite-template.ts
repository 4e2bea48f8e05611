import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A SQLite file migrated with this tree's drizzle/ (its files' hash in the name), made once per run
 * by test/db-templates.ts. A harness copies it into its data directory before the service opens it:
 * a copy takes under a millisecond where migrating a new file took 50–200 ms, and the suite starts
 * the service some thousand times. The service then finds nothing to migrate, as after a restart.
 */
export function migratedSqliteTemplate(): string {
  const dir = path.resolve(import.meta.dirname, '../../drizzle');
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const full = path.join(dir, file);
    if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
  }
  return path.join(os.tmpdir(), `alertbridge-test-template-${hash.digest('hex').slice(0, 16)}.db`);
}

/** Puts a copy of the template where `dbFile` will be opened, when there is no database there yet and the run made one. */
export function seedFromSqliteTemplate(dbFile: string): void {
  const template = migratedSqliteTemplate();
  if (fs.existsSync(dbFile) || !fs.existsSync(template)) return;
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  fs.copyFileSync(template, dbFile);
}
