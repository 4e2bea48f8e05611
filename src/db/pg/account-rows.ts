import type pg from 'pg';
import { SqlAccountRows } from '../shared/account-rows.js';
import { PgExecutor } from './executor.js';

/** Transitional: src/cli still builds the account rows from the pool; removed once the CLI uses the shared wiring. */
export class PgAccountRows extends SqlAccountRows {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}
