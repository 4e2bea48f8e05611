import type { Statement } from './statement.js';

/**
 * What a row module needs from a database, the same on both engines: the SQLite executor
 * (src/db/sqlite/executor.ts) runs each statement synchronously on a prepared statement cached per
 * statement; the PostgreSQL one (src/db/pg/executor.ts) through the pool, or the client of the
 * transaction it runs.
 */
export interface SqlExecutor {
  readonly engine: 'sqlite' | 'postgres';
  all<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R[]>;
  get<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R | undefined>;
  /** The first column of the first row (a count, a flag), or undefined when there is no row. */
  value<P extends object, R>(stmt: Statement<P, R>, params: P): Promise<R[keyof R] | undefined>;
  /** Rows changed. */
  run<P extends object>(stmt: Statement<P, unknown>, params: P): Promise<number>;
  /**
   * Runs `body` as one transaction and resolves after COMMIT (ROLLBACK when it throws). The body is
   * a generator, so it stays synchronous on SQLite (BEGIN IMMEDIATE: the write lock is taken first,
   * and nothing else on the connection runs in between) while PostgreSQL awaits each step:
   *   transaction(function* (tx) { const row = yield* tx.get(FIND, { id }); ... })
   */
  transaction<T>(body: TransactionBody<T>): Promise<T>;
}

/** One statement a transaction body asks its executor to run. */
export interface StepRequest {
  readonly op: 'all' | 'get' | 'value' | 'run';
  readonly stmt: Statement<object, unknown>;
  readonly params: object;
}

/** A transaction body's steps; `yield*` one to run its statement and get its typed result. */
export type Step<T> = Generator<StepRequest, T, unknown>;

export type TransactionBody<T> = (tx: TransactionSteps) => Step<T>;

export const transactionSteps = {
  *all<P extends object, R>(stmt: Statement<P, R>, params: P): Step<R[]> {
    return (yield { op: 'all', stmt, params }) as R[];
  },
  *get<P extends object, R>(stmt: Statement<P, R>, params: P): Step<R | undefined> {
    return (yield { op: 'get', stmt, params }) as R | undefined;
  },
  *value<P extends object, R>(stmt: Statement<P, R>, params: P): Step<R[keyof R] | undefined> {
    return (yield { op: 'value', stmt, params }) as R[keyof R] | undefined;
  },
  *run<P extends object>(stmt: Statement<P, unknown>, params: P): Step<number> {
    return (yield { op: 'run', stmt, params }) as number;
  },
};

export type TransactionSteps = typeof transactionSteps;

/** Runs a body synchronously: each step's statement runs before the body resumes; a failing one is thrown into the body. */
export function driveSync<T>(steps: Step<T>, execute: (request: StepRequest) => unknown): T {
  let next = steps.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = execute(next.value);
    } catch (err) {
      next = steps.throw(err);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

/** Runs a body step by step, awaiting each statement. */
export async function driveAsync<T>(steps: Step<T>, execute: (request: StepRequest) => Promise<unknown>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await execute(next.value);
    } catch (err) {
      next = steps.throw(err);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

/** The first column of a row, as `value` gives it. */
export function firstColumn<R>(row: R | undefined): R[keyof R] | undefined {
  if (row === undefined) return undefined;
  for (const key in row) return (row as Record<string, unknown>)[key] as R[keyof R];
  return undefined;
}
