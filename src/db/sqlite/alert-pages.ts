import type Database from 'better-sqlite3';
import type { AlertRow, PageQuery } from '../../domain/alert-store.js';
import { rawAlertRows } from './alert-store/rows.js';
import { pageOf, type AlertPageReader, type PageParams } from '../shared/alert-reads.js';
import { bindValues, type Statement } from '../shared/statement.js';

const asIs = (value: unknown) => value;

/**
 * The read API's first page on SQLite, its hot path: the shared page statements
 * (src/db/shared/alert-reads.ts) read as raw arrays, which halves the cost of a 50-row page
 * (rawAlertRows in src/db/sqlite/alert-store/rows.ts says why). SQLite-specific until the executor grows a
 * raw mode; PostgreSQL reads the same statements through its executor.
 */
export class SqliteAlertPages implements AlertPageReader {
  private readonly readers = new Map<Statement<PageParams, AlertRow>, (...values: unknown[]) => AlertRow[]>();

  constructor(private readonly connection: Database.Database) {}

  async page(query: PageQuery): Promise<AlertRow[]> {
    const { stmt, params } = pageOf(query);
    let read = this.readers.get(stmt);
    if (!read) {
      read = rawAlertRows(this.connection.prepare<unknown[], unknown[]>(stmt.sqlite!.text).raw());
      this.readers.set(stmt, read);
    }
    return read(...bindValues(stmt.sqlite!, params, asIs));
  }
}
