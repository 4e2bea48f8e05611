import type pg from 'pg';
import { SqlPreferenceRows } from '../shared/preference-rows.js';
import { PgExecutor } from './executor.js';

/** Transitional: the CLI (src/cli/pg-rows.ts) still builds its rows from the pool; delete once it uses the shared wiring. */
export class PgPreferenceRows extends SqlPreferenceRows {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}
