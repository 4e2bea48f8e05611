import type pg from 'pg';
import { SqlAlertRemoval } from '../../shared/alert-removal.js';
import { PgWriteUnits } from './unit.js';

/** Transitional: the CLI (src/cli/pg-rows.ts) still builds its rows from the pool; delete once it uses the shared wiring. */
export class PgAlertRemoval extends SqlAlertRemoval {
  constructor(pool: pg.Pool) {
    super(new PgWriteUnits(pool));
  }
}
