import type pg from 'pg';
import { SqlAlertReports } from '../../shared/alert-reports.js';
import { PgExecutor } from '../executor.js';

/** The shared alert reports (src/db/shared/alert-reports.ts) over a pool, for callers that hold only the pool (src/cli/pg-rows.ts). */
export class PgAlertReports extends SqlAlertReports {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}
