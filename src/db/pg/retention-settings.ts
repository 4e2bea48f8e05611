import type pg from 'pg';
import { SqlRetentionSettings } from '../shared/retention-settings.js';
import { PgExecutor } from './executor.js';

/** Transitional: the CLI (src/cli/pg-rows.ts) still builds its rows from the pool; delete once it uses the shared wiring. */
export class PgRetentionSettings extends SqlRetentionSettings {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}
