import type pg from 'pg';
import { SqlAlertReports } from '../../shared/alert-reports.js';
import { PgExecutor } from '../executor.js';

/** Transitional: the CLI (src/cli/pg-rows.ts) still builds its rows from the pool; delete once it uses the shared wiring. */
export class PgAlertReports extends SqlAlertReports {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}
