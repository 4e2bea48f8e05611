import type Database from 'better-sqlite3';
import { driveSync, firstColumn, transactionSteps, type SqlExecutor, type StepRequest, type TransactionBody } from '../shared/executor.js';
import { bindValues, withBooleans, type Statement } from '../shared/statement.js';

/**
 * better-sqlite3 binds no booleans: they are stored as 1/0, as drizzle's boolean columns store them.
 * An array (a list parameter, `Dialect.listOf`) is bound as JSON text for json_each.
 */
function toSqlite(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return Array.isArray(value) ? JSON.stringify(value) : value;
}

/**
 * The shared statements on SQLite: each prepared once per connection (the first time it runs) and
 * kept, since preparing costs more than running on the hot paths. Synchronous inside; the `…Now`
 * methods let SQLite-only code (the group commit's units) run shared statements in its own transaction.
 */
export class SqliteExecutor implements SqlExecutor {
  readonly engine = 'sqlite';
  private readonly prepared = new Map<Statement<object, unknown>, Database.Statement<unknown[], Record<string, unknown>>>();
  private readonly immediate: <T>(fn: () => T) => T;

  constructor(private readonly connection: Database.Database) {
    const transaction = connection.transaction((fn: () => unknown) => fn());
    // better-sqlite3 types a transaction's result from its function, which here is generic: the result is fn's.
    this.immediate = <T>(fn: () => T) => transaction.immediate(fn) as T;
  }

  allNow<P extends object, R>(stmt: Statement<P, R>, params: P): R[] {
    const prepared = this.statementFor(stmt);
    if (!prepared) return [];
    const rows = prepared.all(...this.values(stmt, params));
    if (stmt.booleans.length > 0) for (const row of rows) withBooleans(stmt, row);
    return rows as R[];
  }

  getNow<P extends object, R>(stmt: Statement<P, R>, params: P): R | undefined {
    const prepared = this.statementFor(stmt);
    if (!prepared) return undefined;
    const row = prepared.get(...this.values(stmt, params));
    return row === undefined ? undefined : withBooleans(stmt, row);
  }

  valueNow<P extends object, R>(stmt: Statement<P, R>, params: P): R[keyof R] | undefined {
    return firstColumn(this.getNow(stmt, params));
  }

  runNow<P extends object>(stmt: Statement<P, unknown>, params: P): number {
    const prepared = this.statementFor(stmt);
    return prepared ? prepared.run(...this.values(stmt, params)).changes : 0;
  }

  /** Runs a transaction body's steps now, inside a transaction the caller already holds (a group-commit unit). */
  stepsNow<T>(body: TransactionBody<T>): T {
    return driveSync(body(transactionSteps), (request) => this.execute(request));
  }

  async all<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R[]> {
    return this.allNow(stmt, params);
  }

  async get<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R | undefined> {
    return this.getNow(stmt, params);
  }

  async value<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R[keyof R] | undefined> {
    return this.valueNow(stmt, params);
  }

  async run<P extends object>(stmt: Statement<P, unknown>, params: P): Promise<number> {
    return this.runNow(stmt, params);
  }

  /** BEGIN IMMEDIATE: the write lock up front, so a read-then-write never meets another writer half-way. */
  async transaction<T>(body: TransactionBody<T>): Promise<T> {
    return this.immediate(() => this.stepsNow(body));
  }

  private execute(request: StepRequest): unknown {
    const { stmt, params } = request;
    switch (request.op) {
      case 'all':
        return this.allNow(stmt, params);
      case 'get':
        return this.getNow(stmt, params);
      case 'value':
        return this.valueNow(stmt, params);
      case 'run':
        return this.runNow(stmt, params);
    }
  }

  private values(stmt: Statement<object, unknown>, params: object): unknown[] {
    return bindValues(stmt.sqlite!, params, toSqlite);
  }

  private statementFor(stmt: Statement<object, unknown>): Database.Statement<unknown[], Record<string, unknown>> | null {
    if (stmt.sqlite === null) return null;
    let prepared = this.prepared.get(stmt);
    if (!prepared) {
      prepared = this.connection.prepare<unknown[], Record<string, unknown>>(stmt.sqlite.text);
      this.prepared.set(stmt, prepared);
    }
    return prepared;
  }
}
