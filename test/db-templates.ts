import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { migratePg } from '../src/db/pg/migrate.js';
import { openDb } from '../src/db/sqlite/connection.js';
import { migratedTemplateName, TEST_DATABASE_URL } from './helpers/pg.js';
import { migratedSqliteTemplate } from './helpers/sqlite-template.js';

/** Global setup: the migrated databases the harnesses copy, one per engine. */
export default async function makeMigratedTemplates(): Promise<void> {
  makeSqliteTemplate();
  await makeMigratedTemplate();
}

/** Migrated under a name of its own, checkpointed into one file and closed, then renamed into place. */
function makeSqliteTemplate(): void {
  const file = migratedSqliteTemplate();
  if (fs.existsSync(file)) return;
  const building = `${file}.${randomBytes(4).toString('hex')}`;
  const db = openDb(building);
  db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  fs.renameSync(building, file);
}

/**
 * The PostgreSQL template that `freshDatabase({ migrated: true })` copies, made once
 * for this tree's migrations. Built under a name of its own and renamed when complete, so a run
 * never copies a half-migrated database, and two runs building at once both end with one template.
 */
async function makeMigratedTemplate(): Promise<void> {
  if (!TEST_DATABASE_URL) return;
  const name = migratedTemplateName();
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1) return;
    const building = `${name}_b${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${building}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
    try {
      await migratePg(pool);
    } finally {
      await pool.end();
    }
    try {
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } catch {
      // Another run renamed its copy first: keep theirs.
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}
