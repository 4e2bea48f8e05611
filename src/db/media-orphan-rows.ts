import type Database from 'better-sqlite3';
import { SqlMediaOrphanRows } from './shared/media-orphan-rows.js';
import { SqliteExecutor } from './sqlite/executor.js';

/** Transitional: the CLI (src/cli/context.ts) still builds its rows from the raw handle; delete once it uses the shared wiring. */
export class SqliteMediaOrphanRows extends SqlMediaOrphanRows {
  constructor(sqlite: Database.Database) {
    super(new SqliteExecutor(sqlite));
  }
}
