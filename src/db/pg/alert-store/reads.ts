import type pg from 'pg';
import { SqlAlertReads } from '../../shared/alert-reads.js';
import { PgExecutor } from '../executor.js';

/** The shared alert reads (src/db/shared/alert-reads.ts) over a pool, for callers that hold only the pool (the contract tests). */
export class PgAlertReads extends SqlAlertReads {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}
