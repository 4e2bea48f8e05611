import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { describe, it } from 'vitest';
import { dirHash } from './dir-hash.js';

/**
 * PostgreSQL for tests. `TEST_DATABASE_URL` names a server and a database the tests may connect to
 * (`.ci/run` sets it for the machine's server); each test file then gets databases of its own,
 * created fresh on that server and dropped after, so files running in parallel never see each
 * other's rows. Without `TEST_DATABASE_URL` the PostgreSQL tests are skipped with a printed reason,
 * except under CI=true, where they fail: a CI run that silently tested SQLite only would lie.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** `describe` for tests that need PostgreSQL: runs them, skips them with a reason, or fails under CI. */
export function describePg(name: string, body: () => void): void {
  if (TEST_DATABASE_URL) {
    describe(name, body);
    return;
  }
  if (IN_CI) {
    describe(name, () => {
      it('needs PostgreSQL', () => {
        throw new Error('TEST_DATABASE_URL is not set, and CI=true: PostgreSQL tests must run in CI (.ci/run sets it)');
      });
    });
    return;
  }
  process.stderr.write(`[skipped] ${name}: TEST_DATABASE_URL is not set (run .ci/run, or export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)\n`);
  describe.skip(name, body);
}

export interface FreshDatabase {
  /** A connection URL for the new, empty database. */
  readonly url: string;
  readonly name: string;
  /** Drops it (terminating leftover connections). */
  drop(): Promise<void>;
}

/**
 * The name of a database migrated with this tree's drizzle-pg/ (its files' hash in the name), made
 * once per run by test/db-templates.ts. Copying it costs a fraction of migrating a new database
 * (about 0.3 s against 1.5 s), and most test files start several services on PostgreSQL.
 */
export function migratedTemplateName(): string {
  return `ab_tpl_${dirHash(path.resolve(import.meta.dirname, '../../drizzle-pg'))}`;
}

/**
 * Creates a database on TEST_DATABASE_URL's server, named `ab_test_<random>`: empty, or with
 * `migrated`, a copy of the migrated template (when the run made one; otherwise empty, and the
 * service migrates it as it starts, as it would anyway).
 */
export async function freshDatabase(opts: { migrated?: boolean } = {}): Promise<FreshDatabase> {
  if (!TEST_DATABASE_URL) throw new Error('freshDatabase() needs TEST_DATABASE_URL (use describePg)');
  const name = `ab_test_${randomBytes(6).toString('hex')}`;
  const template = opts.migrated ? migratedTemplateName() : undefined;
  if (template && (await templateExists(template))) await admin(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  else await admin(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function templateExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
