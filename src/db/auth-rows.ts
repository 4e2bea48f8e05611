import type Database from 'better-sqlite3';
import { SqlAuditRows, SqlSignInLinkRows } from './shared/auth-rows.js';
import { SqliteExecutor } from './sqlite/executor.js';

// Transitional: src/cli still builds these rows from the handle; removed once the CLI uses the shared wiring.

export class SqliteAuditRows extends SqlAuditRows {
  constructor(sqlite: Database.Database) {
    super(new SqliteExecutor(sqlite));
  }
}

export class SqliteSignInLinkRows extends SqlSignInLinkRows {
  constructor(sqlite: Database.Database) {
    super(new SqliteExecutor(sqlite));
  }
}
