import type pg from 'pg';
import { SqlAuditRows, SqlSignInLinkRows } from '../shared/auth-rows.js';
import { PgExecutor } from './executor.js';

// Transitional: src/cli still builds these rows from the pool; removed once the CLI uses the shared wiring.

export class PgAuditRows extends SqlAuditRows {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}

export class PgSignInLinkRows extends SqlSignInLinkRows {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}
