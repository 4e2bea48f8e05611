import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Runs one statement on its own connection (CREATE / DROP DATABASE cannot share a transaction). */
export async function pgAdmin(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A fresh `ab_bench_<random>` database on the bench server, dropped by `drop`. */
export async function freshBenchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ab_bench_${randomBytes(6).toString('hex')}`;
  await pgAdmin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => pgAdmin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
