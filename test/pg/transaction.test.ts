import { afterEach, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { holdClient, inTransaction } from '../../src/db/pg/transaction.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

// A connection ended by the server while a node holds it (a restart, an operator's
// pg_terminate_backend) fails the statement that was running; it must not reach the process as an
// unhandled 'error' event (pg-pool listens only to idle clients), which vitest would report here.
describePg('PostgreSQL clients held for a transaction or a lock', () => {
  let fresh: FreshDatabase | undefined;
  let db: PgDb | undefined;
  afterEach(async () => {
    await db?.close();
    await fresh?.drop();
    db = undefined;
    fresh = undefined;
  });

  it('a backend terminated inside a transaction rejects the call, writes nothing, and the pool goes on', async () => {
    fresh = await freshDatabase();
    db = await openPg(fresh.url, { max: 2 });
    await db.pool.query('CREATE TABLE t (n int)');
    const killed = inTransaction(db.pool, async (tx) => {
      await tx.query('INSERT INTO t VALUES (1)');
      await tx.query('SELECT pg_terminate_backend(pg_backend_pid())');
    });
    await expect(killed).rejects.toThrow(/terminat/i);
    expect((await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0]?.n).toBe(0);
    await inTransaction(db.pool, (tx) => tx.query('INSERT INTO t VALUES (2)'));
    expect((await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0]?.n).toBe(1);
  });

  it('a held client whose backend is terminated from outside is destroyed on release, not reused', async () => {
    fresh = await freshDatabase();
    db = await openPg(fresh.url, { max: 1 });
    const held = await holdClient(db.pool);
    const pid = (await held.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    // Listening before the termination: the connection may end before the terminating call returns.
    const ended = new Promise<void>((resolve) => held.client.once('end', () => resolve()));
    const other = await openPg(fresh.url, { max: 1, migrate: false });
    try {
      await other.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await other.close();
    }
    await ended;
    held.release();
    // The pool's one slot is free again, on a new connection.
    const next = (await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    expect(next).not.toBe(pid);
  });
});
