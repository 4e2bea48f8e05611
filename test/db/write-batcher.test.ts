import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';

describe('WriteBatcher (group commit)', () => {
  let dir: string;
  let db: Database.Database;
  let other: Database.Database;
  let batcher: WriteBatcher;
  const rows = (d = other) => d.prepare('SELECT v FROM t ORDER BY v').pluck().all();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-batcher-'));
    db = new Database(path.join(dir, 'db.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (v TEXT PRIMARY KEY)');
    other = new Database(path.join(dir, 'db.sqlite'), { readonly: true });
    batcher = new WriteBatcher(db);
  });
  afterEach(() => {
    other.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('commits everything queued in one turn in one transaction, and settles only after COMMIT', async () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const seenByOtherConnection: unknown[][] = [];
    const all = Promise.all(
      ['a', 'b', 'c'].map((v) =>
        batcher.run(() => insert.run(v)).then(() => {
          seenByOtherConnection.push(rows());
          return v;
        }),
      ),
    );
    expect(rows()).toEqual([]); // nothing runs before the turn ends
    expect(await all).toEqual(['a', 'b', 'c']);
    // Each promise saw every row of the batch from another connection: it resolved after COMMIT.
    expect(seenByOtherConnection).toEqual([['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c']]);
    expect(batcher.stats).toEqual({ batches: 1, replays: 0 });
  });

  it('rolls back a failing unit alone, with every write it made, and commits the others', async () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const results = await Promise.allSettled([
      batcher.run(() => insert.run('a')),
      batcher.run(() => {
        insert.run('half-done'); // written, then the unit fails: must not survive
        insert.run('a'); // UNIQUE constraint
      }),
      batcher.run(() => {
        insert.run('c');
        return 'third';
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect((results[2] as PromiseFulfilledResult<string>).value).toBe('third');
    expect(rows()).toEqual(['a', 'c']);
    expect(batcher.stats).toEqual({ batches: 1, replays: 1 });
  });

  it('a unit that throws before writing fails alone too', async () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const results = await Promise.allSettled([
      batcher.run(() => {
        throw new Error('run already finished');
      }),
      batcher.run(() => insert.run('b')),
    ]);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe('run already finished');
    expect(results[1]!.status).toBe('fulfilled');
    expect(rows()).toEqual(['b']);
  });

  it('rejects every unit of a batch whose COMMIT cannot happen, and stores nothing', async () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    // Another connection holds the write lock past the busy timeout.
    const locker = new Database(path.join(dir, 'db.sqlite'));
    db.pragma('busy_timeout = 50');
    locker.exec('BEGIN IMMEDIATE');
    try {
      const results = await Promise.allSettled([batcher.run(() => insert.run('x')), batcher.run(() => insert.run('y'))]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect((results[0] as PromiseRejectedResult).reason.code).toBe('SQLITE_BUSY');
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    expect(rows()).toEqual([]);
    await batcher.run(() => insert.run('z')); // and it recovers
    expect(rows()).toEqual(['z']);
  });

  it('a unit that makes SQLite abandon the whole transaction (disk full) fails the batch: nothing after it commits on its own', async () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    const big = 'x'.repeat(64 * 1024); // needs far more than two more pages: SQLITE_FULL
    const results = await Promise.allSettled([
      batcher.run(() => insert.run('a')),
      batcher.run(() => insert.run(big)),
      batcher.run(() => insert.run('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('SQLITE_FULL');
    // Every promise says "not stored", and indeed nothing is.
    expect(rows()).toEqual([]);
    db.pragma('max_page_count = 1073741823');
    await batcher.run(() => insert.run('d'));
    expect(rows()).toEqual(['d']);
  });
});
