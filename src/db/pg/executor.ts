import type pg from 'pg';
import { driveAsync, firstColumn, transactionSteps, type SqlExecutor, type StepRequest, type TransactionBody } from '../shared/executor.js';
import { bindValues, withBooleans, type CompiledText, type Statement } from '../shared/statement.js';
import { inTransaction } from './transaction.js';

type Queryable = Pick<pg.ClientBase, 'query'>;

const asIs = (value: unknown) => value;

/**
 * The shared statements on PostgreSQL, through the pool (each statement on whichever connection is
 * free) or, inside a transaction, through its client. bigint columns already arrive as numbers
 * (src/db/pg/connection.ts); numeric ones (sum, avg) would arrive as strings, so shared SQL casts
 * them (`CAST(sum(x) AS BIGINT)`).
 */
export class PgExecutor implements SqlExecutor {
  readonly engine = 'postgres';

  constructor(private readonly pool: pg.Pool) {}

  all<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R[]> {
    return allOn(this.pool, stmt, params);
  }

  async get<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R | undefined> {
    return (await allOn(this.pool, stmt, params))[0];
  }

  async value<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R[keyof R] | undefined> {
    return firstColumn<R>(await this.get(stmt, params));
  }

  run<P extends object>(stmt: Statement<P, unknown>, params: P): Promise<number> {
    return runOn(this.pool, stmt, params);
  }

  /**
   * The rows as arrays in the statement's column order, with the columns' names (the driver builds no object per row): for a
   * hot read whose caller maps the columns itself (src/db/pg/alert-store/channel-pages.ts). Booleans
   * arrive as PostgreSQL's true/false.
   */
  async arrays<P extends object>(stmt: Statement<P, unknown>, params: P): Promise<{ rows: unknown[][]; names: string[] }> {
    if (stmt.pg === null) return { rows: [], names: [] };
    const result = await this.pool.query<unknown[]>({ ...queryOf(stmt.pg, params), rowMode: 'array' });
    return { rows: result.rows, names: result.fields.map((f) => f.name) };
  }

  /** BEGIN (read committed), the body's steps on one client, COMMIT; ROLLBACK when anything throws. */
  transaction<T>(body: TransactionBody<T>): Promise<T> {
    return inTransaction(this.pool, (tx) => stepsOn(tx, body));
  }
}

/** Runs a transaction body's steps on a client whose transaction the caller holds (PostgreSQL-only units). */
export function stepsOn<T>(client: Queryable, body: TransactionBody<T>): Promise<T> {
  return driveAsync(body(transactionSteps), (request) => execute(client, request));
}

async function execute(client: Queryable, request: StepRequest): Promise<unknown> {
  const { stmt, params } = request;
  switch (request.op) {
    case 'all':
      return allOn(client, stmt, params);
    case 'get':
      return (await allOn(client, stmt, params))[0];
    case 'value':
      return firstColumn((await allOn(client, stmt, params))[0]);
    case 'run':
      return runOn(client, stmt, params);
  }
}

/** The driver's query: named when the statement is kept prepared (the driver parses it once per connection). */
function queryOf(compiled: CompiledText, params: object): pg.QueryConfig {
  const values = bindValues(compiled, params, asIs);
  return compiled.prepared ? { name: compiled.prepared, text: compiled.text, values } : { text: compiled.text, values };
}

/** A shared statement's rows, on a client the caller holds (inside its own transaction). */
export async function allOn<P extends object, R>(client: Queryable, stmt: Statement<P, R>, params: P): Promise<R[]> {
  if (stmt.pg === null) return [];
  const { rows } = await client.query<Record<string, unknown>>(queryOf(stmt.pg, params));
  if (stmt.booleans.length > 0) for (const row of rows) withBooleans(stmt, row);
  return rows as R[];
}

/** A shared statement run on a client the caller holds; rows changed. */
export async function runOn<P extends object>(client: Queryable, stmt: Statement<P, unknown>, params: P): Promise<number> {
  if (stmt.pg === null) return 0;
  const result = await client.query(queryOf(stmt.pg, params));
  return result.rowCount ?? 0;
}

/**
 * The shared statements on one client whose transaction the caller holds (a PostgreSQL-only unit
 * such as the first start under its advisory lock): every statement runs on that client, and a
 * `transaction` body simply joins the transaction already open.
 */
export class PgHeldTransactionExecutor implements SqlExecutor {
  readonly engine = 'postgres';

  constructor(private readonly client: Queryable) {}

  all<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R[]> {
    return allOn(this.client, stmt, params);
  }

  async get<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R | undefined> {
    return (await allOn(this.client, stmt, params))[0];
  }

  async value<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R[keyof R] | undefined> {
    return firstColumn<R>(await this.get(stmt, params));
  }

  run<P extends object>(stmt: Statement<P, unknown>, params: P): Promise<number> {
    return runOn(this.client, stmt, params);
  }

  transaction<T>(body: TransactionBody<T>): Promise<T> {
    return stepsOn(this.client, body);
  }
}
