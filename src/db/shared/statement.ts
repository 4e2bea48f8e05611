/**
 * One SQL statement for both engines. Written once with named parameters (`:tokenHash`) and
 * compiled once, when the module loads, to SQLite's `?` and PostgreSQL's `$1`; the executors
 * (src/db/sqlite/executor.ts, src/db/pg/executor.ts) bind a params object by those names.
 * Where the engines truly differ, `perEngine` gives each its own text (or none: a statement only
 * one engine needs, such as a PostgreSQL row lock that SQLite's single writer makes moot).
 */

/** A statement's text for one engine, with the parameter name behind each placeholder, in order. */
export interface CompiledText {
  readonly text: string;
  readonly names: readonly string[];
  /** PostgreSQL only: the name the statement is kept prepared under on each connection (see StatementOptions.prepared). */
  readonly prepared?: string;
}

/** `Params`: the object the statement binds by name; `Row`: one result row. */
export interface Statement<Params extends object, Row> {
  /** null: the statement does nothing on that engine (reads find no row, writes change nothing). */
  readonly sqlite: CompiledText | null;
  readonly pg: CompiledText | null;
  /** Result columns that are booleans: SQLite's 0/1 and PostgreSQL's true/false both come back as true/false. */
  readonly booleans: readonly string[];
  /** Never set: carries the types. */
  readonly types?: { params: Params; row: Row };
}

export interface StatementOptions {
  booleans?: readonly string[];
  /**
   * On PostgreSQL, parse and plan once per connection, then reuse (a named prepared statement):
   * for the hot read path, where planning cost more than running (docs/benchmarks.md). Only for a
   * statement whose plan the parameters cannot change (each filter served by an index whatever the
   * values): after five runs PostgreSQL may keep one generic plan, and
   * test/pg/prepared-plans.test.ts checks that plan on every statement marked so.
   */
  prepared?: boolean;
}

/** Every statement marked `prepared`, for the plan test. */
export const PREPARED_STATEMENTS: Statement<object, unknown>[] = [];
let preparedCount = 0;

export interface EngineTexts {
  sqlite: string | null;
  pg: string | null;
}

/** A comment, a string literal, a quoted identifier, a `::` cast, a named parameter, or a placeholder of another style (refused). */
const TOKENS = /--[^\n]*|'(?:[^']|'')*'|"[^"]*"|::|:([A-Za-z_][A-Za-z0-9_]*)|\?|\$\d+|@[A-Za-z_]/g;

function compile(source: string, placeholder: (index: number, name: string, names: string[]) => string): CompiledText {
  const names: string[] = [];
  const text = source.replace(TOKENS, (token: string, name: string | undefined) => {
    if (name !== undefined) return placeholder(names.push(name), name, names);
    if (token === '?' || token.startsWith('$') || token.startsWith('@')) {
      throw new Error(`statement uses the placeholder ${token}: write named parameters (:name) instead\n${source}`);
    }
    return token;
  });
  return { text, names };
}

function forSqlite(source: string): CompiledText {
  return compile(source, () => '?');
}

/** PostgreSQL numbers each distinct name once, so a name used twice binds one value. */
function forPg(source: string): CompiledText {
  const distinct: string[] = [];
  const { text } = compile(source, (_index, name) => {
    let position = distinct.indexOf(name);
    if (position < 0) position = distinct.push(name) - 1;
    return `$${position + 1}`;
  });
  return { text, names: distinct };
}

/** The same SQL on both engines. */
export function statement<Params extends object = Record<string, never>, Row = never>(
  source: string,
  options: StatementOptions = {},
): Statement<Params, Row> {
  return perEngine<Params, Row>({ sqlite: source, pg: source }, options);
}

/** Each engine's own SQL for one step (null: nothing to do on that engine). */
export function perEngine<Params extends object = Record<string, never>, Row = never>(
  texts: EngineTexts,
  options: StatementOptions = {},
): Statement<Params, Row> {
  const pg = texts.pg === null ? null : forPg(texts.pg);
  const stmt: Statement<Params, Row> = {
    sqlite: texts.sqlite === null ? null : forSqlite(texts.sqlite),
    // A name per statement object: one text per name on a connection, as the pg driver requires.
    pg: pg && options.prepared ? { ...pg, prepared: `ab_${++preparedCount}` } : pg,
    booleans: options.booleans ?? [],
  };
  if (stmt.pg?.prepared) PREPARED_STATEMENTS.push(stmt);
  return stmt;
}

/** The few spellings that differ, for a statement built once per engine by `byDialect`. */
export interface Dialect {
  readonly engine: 'sqlite' | 'postgres';
  /**
   * The elements of an array parameter as a one-column subquery (`value`): SQLite reads it as JSON
   * (json_each; its executor binds arrays as JSON text), PostgreSQL as an array (unnest).
   */
  listOf(name: string, pgType: 'text' | 'bigint'): string;
}

const SQLITE_DIALECT: Dialect = { engine: 'sqlite', listOf: (name) => `(SELECT value FROM json_each(:${name}))` };
const PG_DIALECT: Dialect = { engine: 'postgres', listOf: (name, pgType) => `(SELECT unnest(:${name}::${pgType}[]) AS value)` };

/** One text, spelled for each engine by `build` (for list parameters and the other small differences `Dialect` names). */
export function byDialect<Params extends object = Record<string, never>, Row = never>(
  build: (dialect: Dialect) => string,
  options: StatementOptions = {},
): Statement<Params, Row> {
  return perEngine<Params, Row>({ sqlite: build(SQLITE_DIALECT), pg: build(PG_DIALECT) }, options);
}

/** The values in placeholder order; an undefined value is a programming error on both engines (never a silent NULL). */
export function bindValues(compiled: CompiledText, params: object, toEngine: (value: unknown) => unknown): unknown[] {
  const source = params as Record<string, unknown>;
  const values = new Array<unknown>(compiled.names.length);
  for (let i = 0; i < compiled.names.length; i++) {
    const name = compiled.names[i]!;
    const value = source[name];
    if (value === undefined) throw new Error(`statement parameter :${name} is undefined (pass null for NULL)\n${compiled.text}`);
    values[i] = toEngine(value);
  }
  return values;
}

/** Gives the statement's boolean columns as true/false (a NULL stays null), whatever the engine returned. */
export function withBooleans<Row>(stmt: Statement<object, Row>, row: Record<string, unknown>): Row {
  for (const column of stmt.booleans) {
    const value = row[column];
    if (value !== null && value !== undefined && typeof value !== 'boolean') row[column] = value !== 0;
  }
  return row as Row;
}
