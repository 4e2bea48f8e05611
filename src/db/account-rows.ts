import type { Db } from './connection.js';
import { SqlAccountRows } from './shared/account-rows.js';
import { SqliteExecutor } from './sqlite/executor.js';

/** Transitional: src/cli still builds the account rows from the handle; removed once the CLI uses the shared wiring. */
export class SqliteAccountRows extends SqlAccountRows {
  constructor(db: Db) {
    super(new SqliteExecutor(db.sqlite));
  }
}
