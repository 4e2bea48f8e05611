// One table definition for both engines: `table()` takes columns written once with the builders
// below and returns the drizzle table of each engine, [SQLite, PostgreSQL]. Each schema file exports
// both (`export const [alerts, pgAlerts] = table(...)`); drizzle-kit's SQLite configuration keeps the
// SQLiteTable exports and its PostgreSQL one the PgTable exports of the same files, so the two
// migration folders are generated from one definition (docs/architecture.md, "One schema").
import { sql, type $Type, type BuildColumns, type HasDefault, type IsPrimaryKey, type NotNull, type SQL } from 'drizzle-orm';
import * as pgCore from 'drizzle-orm/pg-core';
import * as sqliteCore from 'drizzle-orm/sqlite-core';

type SqliteBuilder = sqliteCore.SQLiteColumnBuilderBase;
type PgBuilder = pgCore.PgColumnBuilderBase;
type ReferenceActions = { onDelete?: 'cascade' | 'set null' | 'restrict' | 'no action'; onUpdate?: 'cascade' | 'set null' | 'restrict' | 'no action' };

/** The builder methods the pair calls on each side; drizzle's types above say what each returns. */
interface Chainable {
  notNull(): unknown;
  default(value: unknown): unknown;
  primaryKey(): unknown;
  $type(): unknown;
  references(ref: () => unknown, actions?: ReferenceActions): unknown;
  unique(name?: string): unknown;
}
const chain = (builder: unknown) => builder as Chainable;

/** Each engine's table, keyed by the SQLite one: how a reference written against SQLite finds its PostgreSQL column. */
const pgTwinOf = new WeakMap<object, Record<string, unknown>>();

/** One column on both engines: every call applies to the two builders alike. */
export class Column<S extends SqliteBuilder, P extends PgBuilder> {
  constructor(
    readonly sqlite: S,
    readonly pg: P,
  ) {}

  notNull(): Column<NotNull<S>, NotNull<P>> {
    return new Column(chain(this.sqlite).notNull() as NotNull<S>, chain(this.pg).notNull() as NotNull<P>);
  }

  default(value: S['_']['data']): Column<HasDefault<S>, HasDefault<P>> {
    return new Column(chain(this.sqlite).default(value) as HasDefault<S>, chain(this.pg).default(value) as HasDefault<P>);
  }

  primaryKey(): Column<IsPrimaryKey<NotNull<S>>, IsPrimaryKey<NotNull<P>>> {
    return new Column(chain(this.sqlite).primaryKey() as IsPrimaryKey<NotNull<S>>, chain(this.pg).primaryKey() as IsPrimaryKey<NotNull<P>>);
  }

  /** A single-column unique constraint, named by drizzle as on each engine today. */
  unique(name?: string): this {
    chain(this.sqlite).unique(name);
    chain(this.pg).unique(name);
    return this;
  }

  /** Narrows the TypeScript type of the column's values (nothing changes in the database). */
  $type<T>(): Column<$Type<S, T>, $Type<P, T>> {
    return this as unknown as Column<$Type<S, T>, $Type<P, T>>;
  }

  /** A foreign key, written against the SQLite table as drizzle's own `references`; the PostgreSQL side follows its twin. */
  references(ref: () => sqliteCore.SQLiteColumn, actions?: ReferenceActions): this {
    chain(this.sqlite).references(ref, actions);
    chain(this.pg).references(() => pgTwinColumn(ref()), actions);
    return this;
  }
}

/** The PostgreSQL column of the same table and key as a SQLite one. */
function pgTwinColumn(target: sqliteCore.SQLiteColumn): unknown {
  const sqliteTable = target.table as unknown as Record<string, unknown>;
  const key = Object.keys(sqliteTable).find((k) => sqliteTable[k] === target);
  const twin = pgTwinOf.get(target.table);
  if (!twin || key === undefined) throw new Error(`no PostgreSQL twin for the column ${target.name}`);
  return twin[key];
}

/** Text; on PostgreSQL `COLLATE "C"` (byte order, as SQLite's BINARY), which ids and cursors are compared in. `enum` narrows the TypeScript type only. */
export function text<const T extends readonly [string, ...string[]] = [string, ...string[]]>(name: string, config?: { enum: T }) {
  return new Column(
    sqliteCore.text(name, config as { enum: T } | undefined),
    pgCore.customType<{ data: T[number]; driverData: string }>({ dataType: () => 'text COLLATE "C"' })(name),
  );
}

/** A 32-bit integer on both engines (counts and settings that stay small). */
export function integer(name: string) {
  return new Column(sqliteCore.integer(name), pgCore.integer(name));
}

/** Epoch milliseconds, sequence numbers and large counts: SQLite's integer, PostgreSQL's bigint read as a JS number. */
export function bigint(name: string) {
  return new Column(sqliteCore.integer(name), pgCore.bigint(name, { mode: 'number' }));
}

/** A boolean: SQLite stores 0/1, PostgreSQL a boolean. */
export function boolean(name: string) {
  return new Column(sqliteCore.integer(name, { mode: 'boolean' }), pgCore.boolean(name));
}

/** An id handed out by the database: AUTOINCREMENT on SQLite, an identity "by default" on PostgreSQL (an import keeps its ids). */
export function autoId(name: string) {
  return new Column(
    sqliteCore.integer(name).primaryKey({ autoIncrement: true }),
    pgCore.bigint(name, { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  );
}

type SqliteSide<C> = { [K in keyof C]: C[K] extends Column<infer S, PgBuilder> ? S : never };
type PgSide<C> = { [K in keyof C]: C[K] extends Column<SqliteBuilder, infer P> ? P : never };
type AnyColumn = Column<SqliteBuilder, PgBuilder>;

/**
 * The index and key builders of the engine being built, and the one condition the engines spell
 * differently. The extra-config callback is typed with SQLite's builders; PostgreSQL's have the
 * same shape and receive the same calls.
 */
export interface TableParts {
  index: typeof sqliteCore.index;
  uniqueIndex: typeof sqliteCore.uniqueIndex;
  primaryKey: typeof sqliteCore.primaryKey;
  /** A foreign key over several columns, `foreignColumns` written against the SQLite table (as `references`). */
  foreignKey: typeof sqliteCore.foreignKey;
  /** `column = 1` on SQLite, the boolean itself on PostgreSQL. */
  isTrue(column: sqliteCore.SQLiteColumn): SQL;
}

const SQLITE_PARTS: TableParts = {
  index: sqliteCore.index,
  uniqueIndex: sqliteCore.uniqueIndex,
  primaryKey: sqliteCore.primaryKey,
  foreignKey: sqliteCore.foreignKey,
  isTrue: (column) => sql`${column} = 1`,
};

const PG_PARTS = {
  index: pgCore.index,
  uniqueIndex: pgCore.uniqueIndex,
  primaryKey: pgCore.primaryKey,
  foreignKey: (config: { name?: string; columns: unknown[]; foreignColumns: sqliteCore.SQLiteColumn[] }) =>
    pgCore.foreignKey({ ...config, foreignColumns: config.foreignColumns.map(pgTwinColumn) } as unknown as Parameters<typeof pgCore.foreignKey>[0]),
  isTrue: (column: sqliteCore.SQLiteColumn) => sql`${column}`,
} as unknown as TableParts;

/** Both engines' drizzle tables from one definition: [SQLite, PostgreSQL]. */
export function table<const Name extends string, C extends Record<string, AnyColumn>>(
  name: Name,
  columns: C,
  extras?: (t: BuildColumns<Name, SqliteSide<C>, 'sqlite'>, parts: TableParts) => sqliteCore.SQLiteTableExtraConfigValue[],
) {
  const sqliteColumns = Object.fromEntries(Object.entries(columns).map(([key, column]) => [key, column.sqlite])) as SqliteSide<C>;
  const pgColumns = Object.fromEntries(Object.entries(columns).map(([key, column]) => [key, column.pg])) as PgSide<C>;
  const onSqlite = sqliteCore.sqliteTable(name, sqliteColumns, extras && ((t) => extras(t, SQLITE_PARTS)));
  const onPg = pgCore.pgTable(
    name,
    pgColumns,
    extras && ((t) => extras(t as unknown as BuildColumns<Name, SqliteSide<C>, 'sqlite'>, PG_PARTS) as unknown as pgCore.PgTableExtraConfigValue[]),
  );
  pgTwinOf.set(onSqlite, onPg as unknown as Record<string, unknown>);
  return [onSqlite, onPg] as const;
}
