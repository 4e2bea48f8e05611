import type Database from 'better-sqlite3';
import type { AccountRows, FirstStartUnit } from '../../domain/account-rows.js';
import { ANY_WORKSPACE, SqlAccountRows } from '../shared/account-rows.js';
import { SqliteExecutor } from './executor.js';

/**
 * The first start on SQLite: BEGIN IMMEDIATE, so the emptiness check and the writes hold the write
 * lock together and two processes started on one data directory cannot both set it up. The account
 * rows return Promises, so the transaction is opened by hand around them; this runs at start-up,
 * before the process serves anything, so no other statement of the process lands inside it.
 */
export class SqliteFirstStart implements FirstStartUnit {
  private readonly database: SqliteExecutor;

  constructor(private readonly connection: Database.Database) {
    this.database = new SqliteExecutor(connection);
  }

  async ifEmpty<T>(body: (rows: AccountRows) => Promise<T>): Promise<T | null> {
    const connection = this.connection;
    connection.exec('BEGIN IMMEDIATE');
    try {
      const result = this.database.getNow(ANY_WORKSPACE, {}) ? null : await body(new SqlAccountRows(this.database));
      connection.exec('COMMIT');
      return result;
    } catch (err) {
      if (connection.inTransaction) connection.exec('ROLLBACK');
      throw err;
    }
  }
}
