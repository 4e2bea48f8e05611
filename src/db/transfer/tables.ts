import { getTableName } from 'drizzle-orm';
import { getTableConfig, SQLiteBaseInteger, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../shared/schema/index.js';

/**
 * What an export/import moves, derived from the drizzle schema (src/db/shared/schema), which both engines
 * follow (the PostgreSQL mirror is checked against it by test/cluster/schema-parity.test.ts): a table
 * added there is moved without touching this code.
 */
export type ColumnKind = 'text' | 'integer' | 'boolean';
export type Value = string | number | boolean | null;

export interface TableSpec {
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly kind: ColumnKind }[];
  /** Primary-key columns: the order rows are read in, identical on both engines. */
  readonly primaryKey: readonly string[];
  /** The AUTOINCREMENT / identity column, whose sequence an import moves past the imported ids. */
  readonly sequenceColumn: string | undefined;
  /**
   * Kept by triggers from other tables (channel_stats from alerts): an import replaces what the
   * triggers wrote while the source tables were inserted with the file's rows, so it must come after them.
   */
  readonly derived: boolean;
}

const DERIVED = new Set(['channel_stats']);

function kindOf(columnType: string): ColumnKind {
  if (columnType === 'SQLiteBoolean') return 'boolean';
  if (columnType === 'SQLiteInteger' || columnType === 'SQLiteTimestamp') return 'integer';
  if (columnType === 'SQLiteText') return 'text';
  throw new Error(`export/import does not know the column type ${columnType} (src/db/transfer/tables.ts)`);
}

function specOf(table: SQLiteTable): TableSpec & { references: string[] } {
  const c = getTableConfig(table);
  const primaryKey = [...c.columns.filter((col) => col.primary).map((col) => col.name), ...c.primaryKeys.flatMap((pk) => pk.columns.map((col) => col.name))];
  if (primaryKey.length === 0) throw new Error(`table ${c.name} has no primary key: export/import reads in key order`);
  const seq = c.columns.find((col) => col instanceof SQLiteBaseInteger && col.autoIncrement);
  return {
    name: c.name,
    columns: c.columns.map((col) => ({ name: col.name, kind: kindOf(col.columnType) })),
    primaryKey,
    sequenceColumn: seq?.name,
    derived: DERIVED.has(c.name),
    references: c.foreignKeys.map((fk) => getTableName(fk.reference().foreignTable)).filter((t) => t !== c.name),
  };
}

/** Every table, parents before children (foreign keys), derived tables last. */
export function transferTables(): TableSpec[] {
  const specs: (TableSpec & { references: string[] })[] = [];
  for (const t of Object.values(schema) as unknown[]) if (t instanceof SQLiteTable) specs.push(specOf(t));
  const byName = new Map(specs.map((s) => [s.name, s]));
  const ordered: TableSpec[] = [];
  const done = new Set<string>();
  const visit = (s: TableSpec & { references: string[] }, path: string[]) => {
    if (done.has(s.name)) return;
    if (path.includes(s.name)) throw new Error(`foreign-key cycle: ${[...path, s.name].join(' → ')}`);
    for (const parent of s.references) {
      const p = byName.get(parent);
      if (p) visit(p, [...path, s.name]);
    }
    done.add(s.name);
    const { references: _references, ...spec } = s;
    ordered.push(spec);
  };
  for (const s of [...specs].sort((a, b) => a.name.localeCompare(b.name))) visit(s, []);
  return [...ordered.filter((t) => !t.derived), ...ordered.filter((t) => t.derived)];
}

/**
 * The engine-neutral value of a column: what the export file holds and what checksums hash. SQLite
 * gives booleans as 0/1; `pg` gives bigint as a string. Anything else is a schema mismatch.
 */
export function normalise(kind: ColumnKind, v: unknown, where: string): Value {
  if (v === null || v === undefined) return null;
  if (kind === 'text') {
    if (typeof v === 'string') return v;
  } else if (kind === 'integer') {
    const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : typeof v === 'bigint' ? Number(v) : v;
    if (typeof n === 'number' && Number.isSafeInteger(n)) return n;
  } else {
    if (typeof v === 'boolean') return v;
    if (v === 0 || v === 1) return v === 1;
  }
  throw new Error(`${where}: ${JSON.stringify(String(v))} is not a ${kind}`);
}

/** `normalise` for an integer column, typed as such. */
export function integerValue(v: unknown, where: string): number | null {
  const n = normalise('integer', v, where);
  return typeof n === 'number' ? n : null;
}
