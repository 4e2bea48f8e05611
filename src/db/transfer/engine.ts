import type { TableSpec, Value } from './tables.js';

/**
 * One database seen by export/import, the same operations on SQLite and PostgreSQL. Rows are
 * engine-neutral arrays in the order of `TableSpec.columns` (see `normalise`), read in
 * primary-key order with byte-wise text comparison, so both engines read a table in the same order
 * and the same rows hash alike.
 */
export interface TransferEngine {
  readonly dialect: 'sqlite' | 'postgres';
  /** Where it is, for messages: a file path, or host/database (never a password). */
  readonly where: string;
  /** `read`: a consistent snapshot of every table (export). `write`: one transaction for the whole import. */
  begin(mode: 'read' | 'write'): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** Every row, in batches, primary-key order. */
  rows(table: TableSpec): AsyncIterable<Value[][]>;
  /** Tables that hold at least one row. */
  nonEmpty(tables: readonly TableSpec[]): Promise<string[]>;
  insert(table: TableSpec, rows: readonly Value[][]): Promise<void>;
  /** Deletes every row (a derived table about to receive the file's rows). */
  clear(table: TableSpec): Promise<void>;
  /** The last value handed out by the table's AUTOINCREMENT/identity sequence (null: none yet). */
  sequence(table: TableSpec): Promise<number | null>;
  /** Moves the sequence to at least `value` and past every stored id. */
  setSequence(table: TableSpec, value: number | null): Promise<void>;
  close(): Promise<void>;
}

export const READ_BATCH = 1000;

export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
