import type { StoreWriteContext } from './alert-store/write-context.js';
import type { UnitBody, WriteUnits } from '../shared/write-units.js';
import { SqliteExecutor } from './executor.js';

/** Shared write units on SQLite: each body runs synchronously inside the group commit's transaction; its effects are written at once. */
export class SqliteWriteUnits implements WriteUnits {
  /** The executor the bodies run on (its prepared statements), for the same store's reads too. */
  readonly database: SqliteExecutor;

  constructor(private readonly writes: Pick<StoreWriteContext, 'sqlite' | 'batcher' | 'changes'>) {
    this.database = new SqliteExecutor(writes.sqlite);
  }

  run<T>(body: UnitBody<T>): Promise<T> {
    return this.writes.batcher.run(() => this.database.stepsNow((tx) => body(tx, this.writes.changes)));
  }
}
