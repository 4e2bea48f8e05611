import { getTableName } from 'drizzle-orm';
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as schema from '../../src/db/shared/schema/index.js';

/**
 * The PostgreSQL tables mirror the SQLite ones table for table, column for column. Both are built
 * from one definition (src/db/shared/schema/define.ts): this checks that the builders there map
 * every column, key, index and foreign key alike on both engines.
 */
type Shape = Record<string, { columns: Record<string, string>; primaryKey: string[]; indexes: string[]; foreignKeys: string[] }>;

/** What both drizzle dialects' table configs have in common, as far as the shape reads it. */
interface TableConfigLike {
  name: string;
  columns: { name: string; columnType: string; notNull: boolean; hasDefault: boolean; primary: boolean }[];
  primaryKeys: { columns: { name: string }[] }[];
  indexes: { config: { name?: string | undefined; unique: boolean } }[];
  foreignKeys: { reference(): { foreignTable: Parameters<typeof getTableName>[0] } }[];
}

function shapeOf(configs: TableConfigLike[]): Shape {
  const out: Shape = {};
  for (const c of configs) {
    out[c.name] = {
      columns: Object.fromEntries(c.columns.map((col) => [col.name, `${kind(col.columnType)} ${col.notNull ? 'not null' : 'null'}${col.hasDefault ? ' default' : ''}`])),
      primaryKey: [...c.columns.filter((col) => col.primary).map((col) => col.name), ...c.primaryKeys.flatMap((pk) => pk.columns.map((col) => col.name))],
      indexes: c.indexes.map((i) => `${i.config.name}${i.config.unique ? ' unique' : ''}`).sort(),
      foreignKeys: c.foreignKeys.map((fk) => getTableName(fk.reference().foreignTable)).sort(),
    };
  }
  return out;
}

const sqliteShape = () => shapeOf(Object.values(schema).filter((t) => t instanceof SQLiteTable).map((t) => sqliteConfig(t)));
const pgShape = () => shapeOf(Object.values(schema).filter((t) => t instanceof PgTable).map((t) => pgConfig(t)));

/** The logical type both engines agree on: text, integer (any width) or boolean. */
function kind(columnType: string): string {
  if (/Boolean/.test(columnType)) return 'boolean';
  if (/Integer|BigInt|Serial|Numeric/.test(columnType)) return 'integer';
  if (/Text|VarChar|PgCustomColumn/.test(columnType)) return 'text';
  return columnType;
}

describe('the PostgreSQL schema mirrors the SQLite schema', () => {
  it('has the same tables, columns, keys, indexes and foreign keys', () => {
    const sqlite = sqliteShape();
    const pg = pgShape();
    expect(Object.keys(pg).sort()).toEqual(Object.keys(sqlite).sort());
    for (const name of Object.keys(sqlite)) expect({ table: name, ...pg[name] }).toEqual({ table: name, ...sqlite[name] });
  });
});
