import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { PgExecutor } from '../../src/db/pg/executor.js';
import type { SqlExecutor } from '../../src/db/shared/executor.js';
import { perEngine, statement } from '../../src/db/shared/statement.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/**
 * The one mechanism behind the shared row modules: a statement written once with named
 * parameters, run by each engine's executor with the same results (the same cases on both).
 */
describe('statement compilation', () => {
  it('compiles named parameters to ? for SQLite and to $n for PostgreSQL, one number per name', () => {
    const stmt = statement<{ a: string; b: number }>('SELECT * FROM t WHERE x = :a AND y > :b AND z = :a');
    expect(stmt.sqlite).toEqual({ text: 'SELECT * FROM t WHERE x = ? AND y > ? AND z = ?', names: ['a', 'b', 'a'] });
    expect(stmt.pg).toEqual({ text: 'SELECT * FROM t WHERE x = $1 AND y > $2 AND z = $1', names: ['a', 'b'] });
  });

  it('leaves string literals, quoted identifiers, comments and casts alone', () => {
    const stmt = statement<{ id: string }>(
      `SELECT json_extract(j, '$.a:b') AS "x:y", n::int FROM t -- it's :not a parameter\nWHERE id = :id AND s = 'it''s :no'`,
    );
    expect(stmt.pg?.text).toBe(`SELECT json_extract(j, '$.a:b') AS "x:y", n::int FROM t -- it's :not a parameter\nWHERE id = $1 AND s = 'it''s :no'`);
    expect(stmt.pg?.names).toEqual(['id']);
  });

  it('refuses the other placeholder styles, so no statement mixes them', () => {
    expect(() => statement('SELECT * FROM t WHERE id = ?')).toThrow(/placeholder \?/);
    expect(() => statement('SELECT * FROM t WHERE id = $1')).toThrow(/placeholder \$1/);
    expect(() => statement('SELECT * FROM t WHERE id = @id')).toThrow(/placeholder @i/);
  });
});

const ADD = statement<{ id: string; n: number; flag: boolean }>('INSERT INTO items (id, n, flag) VALUES (:id, :n, :flag)');
const ONE = statement<{ id: string }, { id: string; n: number; flag: boolean }>('SELECT id, n, flag FROM items WHERE id = :id', { booleans: ['flag'] });
const ALL = statement<Record<string, never>, { id: string; n: number }>('SELECT id, n FROM items ORDER BY id');
const COUNT = statement<{ min: number }, { count: number }>('SELECT count(*) AS count FROM items WHERE n >= :min');
const TOTAL = statement<Record<string, never>, { total: number | null }>('SELECT CAST(sum(n) AS BIGINT) AS total FROM items');
const BUMP = statement<{ by: number }>('UPDATE items SET n = n + :by');
const ONLY_PG = perEngine<{ id: string }, { id: string }>({ sqlite: null, pg: 'SELECT id FROM items WHERE id = :id FOR UPDATE' });

function contract(open: () => Promise<{ executor: SqlExecutor; close(): Promise<void> }>) {
  let executor: SqlExecutor;
  let close: () => Promise<void>;
  beforeAll(async () => ({ executor, close } = await open()));
  afterAll(() => close());

  it('writes and reads rows, with booleans, counts and sums as JavaScript values on both engines', async () => {
    expect(await executor.run(ADD, { id: 'a', n: 1, flag: true })).toBe(1);
    await executor.run(ADD, { id: 'b', n: 2, flag: false });
    expect(await executor.get(ONE, { id: 'a' })).toEqual({ id: 'a', n: 1, flag: true });
    expect(await executor.get(ONE, { id: 'b' })).toEqual({ id: 'b', n: 2, flag: false });
    expect(await executor.get(ONE, { id: 'zz' })).toBeUndefined();
    expect(await executor.all(ALL, {})).toEqual([{ id: 'a', n: 1 }, { id: 'b', n: 2 }]);
    expect(await executor.value(COUNT, { min: 2 })).toBe(1);
    expect(await executor.value(TOTAL, {})).toBe(3);
    expect(await executor.run(BUMP, { by: 10 })).toBe(2);
  });

  it('refuses an undefined parameter instead of binding NULL', async () => {
    await expect(executor.get(ONE, { id: undefined as unknown as string })).rejects.toThrow(/:id is undefined/);
  });

  it('runs a statement written for the other engine only as nothing', async () => {
    const found = await executor.get(ONLY_PG, { id: 'a' });
    expect(found).toEqual(executor.engine === 'postgres' ? { id: 'a' } : undefined);
  });

  it('commits a transaction body and gives back its result', async () => {
    const result = await executor.transaction(function* (tx) {
      yield* tx.run(ADD, { id: 'c', n: 5, flag: false });
      const row = yield* tx.get(ONE, { id: 'c' });
      return row?.n;
    });
    expect(result).toBe(5);
    expect(await executor.get(ONE, { id: 'c' })).toMatchObject({ n: 5 });
  });

  it('rolls a transaction back when its body or one of its statements throws', async () => {
    await expect(
      executor.transaction(function* (tx) {
        yield* tx.run(ADD, { id: 'd', n: 1, flag: false });
        yield* tx.run(ADD, { id: 'd', n: 1, flag: false });
      }),
    ).rejects.toThrow(/unique|duplicate/i);
    await expect(
      executor.transaction(function* (tx) {
        yield* tx.run(ADD, { id: 'e', n: 1, flag: false });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await executor.get(ONE, { id: 'd' })).toBeUndefined();
    expect(await executor.get(ONE, { id: 'e' })).toBeUndefined();
  });
}

describe('the statement executor on SQLite', () => {
  contract(async () => {
    const connection = new Database(':memory:');
    connection.exec('CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL, flag integer NOT NULL)');
    return { executor: new SqliteExecutor(connection), close: async () => void connection.close() };
  });

  it('prepares each statement once per connection', async () => {
    const connection = new Database(':memory:');
    connection.exec('CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL, flag integer NOT NULL)');
    let prepared = 0;
    const prepare = connection.prepare.bind(connection);
    connection.prepare = ((source: string) => {
      prepared++;
      return prepare(source);
    }) as typeof connection.prepare;
    const executor = new SqliteExecutor(connection);
    for (let i = 0; i < 3; i++) await executor.get(ONE, { id: 'a' });
    expect(prepared).toBe(1);
    connection.close();
  });

  it('runs a body synchronously inside a transaction the caller holds (the group commit)', () => {
    const connection = new Database(':memory:');
    connection.exec('CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL, flag integer NOT NULL)');
    const executor = new SqliteExecutor(connection);
    const n = connection.transaction(() =>
      executor.stepsNow(function* (tx) {
        yield* tx.run(ADD, { id: 'a', n: 7, flag: true });
        return (yield* tx.get(ONE, { id: 'a' }))?.n;
      }),
    )();
    expect(n).toBe(7);
    connection.close();
  });
});

describePg('the statement executor on PostgreSQL', () => {
  contract(async () => {
    const fresh: FreshDatabase = await freshDatabase();
    const db: PgDb = await openPg(fresh.url, { migrate: false });
    await db.pool.query('CREATE TABLE items (id text PRIMARY KEY, n bigint NOT NULL, flag boolean NOT NULL)');
    return {
      executor: new PgExecutor(db.pool),
      close: async () => {
        await db.close();
        await fresh.drop();
      },
    };
  });
});
