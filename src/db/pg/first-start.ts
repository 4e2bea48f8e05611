import type pg from 'pg';
import type { AccountRows, FirstStartUnit } from '../../domain/account-rows.js';
import { ANY_WORKSPACE, SqlAccountRows } from '../shared/account-rows.js';
import { PgHeldTransactionExecutor } from './executor.js';
import { FIRST_START_LOCK } from '../shared/advisory-locks.js';
import { inTransaction } from './transaction.js';

/**
 * The first start on PostgreSQL: one transaction under a transaction-level advisory lock, so of
 * several nodes starting together on an empty database one sets it up and the others, waiting for
 * the lock, find a workspace and skip. The rows are bound to the transaction's client, so a failure
 * half-way leaves nothing.
 */
export class PgFirstStart implements FirstStartUnit {
  constructor(private readonly pool: pg.Pool) {}

  ifEmpty<T>(body: (rows: AccountRows) => Promise<T>): Promise<T | null> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [FIRST_START_LOCK]);
      const database = new PgHeldTransactionExecutor(client);
      return (await database.get(ANY_WORKSPACE, {})) ? null : body(new SqlAccountRows(database));
    });
  }
}
