import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { MIGRATION_LOCK } from '../shared/advisory-locks.js';
import { holdClient } from './transaction.js';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../drizzle-pg');

export interface MigrationResult {
  /** Migrations this call applied (0 when another node had already applied them). */
  applied: number;
  /** Migrations recorded in the database afterwards. */
  total: number;
}

/**
 * Applies drizzle-pg/ under a session-level advisory lock on one dedicated connection, so that
 * several nodes starting together migrate once: the first takes the lock and migrates (drizzle runs
 * all pending migrations in one transaction), the others wait for the lock, then find nothing to
 * do. Without the lock two nodes could both see a migration as pending and both run it (the
 * second fails on "already exists", or worse, half of a data migration runs twice).
 */
export async function migratePg(pool: pg.Pool): Promise<MigrationResult> {
  const held = await holdClient(pool);
  const client = held.client;
  let broken = false;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const before = await countApplied(client);
      // Loaded here, not at start: the running node never uses drizzle otherwise.
      const [{ drizzle }, { migrate }] = await Promise.all([import('drizzle-orm/node-postgres'), import('drizzle-orm/node-postgres/migrator')]);
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
      const total = await countApplied(client);
      return { applied: total - before, total };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } catch (err) {
    // A connection whose lock state is unknown is not given back to the pool.
    broken = true;
    throw err;
  } finally {
    held.release(broken);
  }
}

async function countApplied(client: pg.PoolClient): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
  return Number(rows[0]?.n ?? 0);
}
