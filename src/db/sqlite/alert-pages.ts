import type Database from 'better-sqlite3';
import type { AlertRow, PageQuery, UnreadPageQuery } from '../../domain/alert-store.js';
import { rawAlertRows } from './alert-store/rows.js';
import { pageOf, type AlertPageReader } from '../shared/alert-reads.js';
import { bindValues, type Statement } from '../shared/statement.js';
import { unreadPageOf } from '../shared/unread-pages.js';

const asIs = (value: unknown) => value;

/**
 * The read API's first page on SQLite, its hot path: the shared page statements
 * (src/db/shared/alert-reads.ts) read as raw arrays, which halves the cost of a 50-row page
 * (rawAlertRows in src/db/sqlite/alert-store/rows.ts says why). SQLite-specific until the executor grows a
 * raw mode; PostgreSQL reads the same statements through its executor.
 */
export class SqliteAlertPages implements AlertPageReader {
  private readonly readers = new Map<Statement<object, AlertRow>, (...values: unknown[]) => AlertRow[]>();

  constructor(private readonly connection: Database.Database) {}

  async page(query: PageQuery): Promise<AlertRow[]> {
    const { stmt, params } = pageOf(query);
    return this.readerOf(stmt)(...bindValues(stmt.sqlite!, params, asIs));
  }

  /** The unread-only page, read the same way (its statement selects the same columns). */
  async unreadPage(userId: string, query: UnreadPageQuery): Promise<AlertRow[]> {
    const { stmt, params } = unreadPageOf(userId, query);
    return this.readerOf(stmt)(...bindValues(stmt.sqlite!, params, asIs));
  }

  private readerOf(stmt: Statement<object, AlertRow>) {
    let read = this.readers.get(stmt);
    if (!read) {
      read = rawAlertRows(this.connection.prepare<unknown[], unknown[]>(stmt.sqlite!.text).raw());
      this.readers.set(stmt, read);
    }
    return read;
  }
}
