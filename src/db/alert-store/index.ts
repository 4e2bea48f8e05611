import type Database from 'better-sqlite3';
import type { AlertStore } from '../../domain/alert-store.js';
import { SqliteChangeLog } from './change-log.js';
import { SqliteAlertReads } from './reads.js';

/**
 * The SQLite alert store: the one module that runs SQL against alerts, their
 * attachments, read state, the change log and the outbox. Each part is a
 * small class over prepared statements; this facade builds them over one
 * connection and the group-commit batcher.
 */
export class SqliteAlertStore implements AlertStore {
  readonly reads: SqliteAlertReads;
  readonly changes: SqliteChangeLog;

  constructor(sqlite: Database.Database) {
    this.reads = new SqliteAlertReads(sqlite);
    this.changes = new SqliteChangeLog(sqlite);
  }
}
