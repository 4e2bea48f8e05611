import type pg from 'pg';

/**
 * A constant PostgreSQL-only statement kept prepared on each connection (parsed and planned once,
 * then only bound and run), as the shared statements marked `prepared` are (src/db/shared/statement.ts).
 * For the write path's batch statements, whose rows come as arrays (`unnest`), so their text never
 * changes with the batch, and the rate-limit count: plans no value can change (inserts from the
 * arrays, upserts on a key).
 */
export function prepared(name: string, text: string): (values: unknown[]) => pg.QueryConfig {
  const named = `ab_${name}`;
  return (values) => ({ name: named, text, values });
}
