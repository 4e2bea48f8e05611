import type Database from 'better-sqlite3';
import { SqlAlertReports } from '../shared/alert-reports.js';
import { SqliteExecutor } from '../sqlite/executor.js';

/** The shared alert reports (src/db/shared/alert-reports.ts) over a connection, for callers that hold only the connection (src/cli/context.ts). */
export class SqliteAlertReports extends SqlAlertReports {
  constructor(sqlite: Database.Database) {
    super(new SqliteExecutor(sqlite));
  }
}
