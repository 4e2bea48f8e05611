import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageTally } from '../../src/db/sqlite/alert-store/usage-tally.js';
import { openDb, type Db } from '../../src/db/sqlite/connection.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';

/**
 * Billable events are added up per group commit (one upsert per workspace and
 * month per batch). The stored counts must equal the events of the units that
 * committed: a unit that fails after counting takes its event back.
 */
describe('usage counted once per batch', () => {
  let dir: string;
  let db: Db;
  let batcher: WriteBatcher;
  let tally: UsageTally;
  const nov = Date.UTC(2026, 10, 30, 23, 59);
  const dec = Date.UTC(2026, 11, 1, 0, 1);
  const counts = () => db.sqlite.prepare('SELECT workspace_id AS ws, month, events FROM usage_counters ORDER BY ws, month').all();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-usage-'));
    db = openDb(path.join(dir, 'db.sqlite'));
    for (const ws of ['ws_a', 'ws_b']) db.sqlite.prepare("INSERT INTO workspaces (id, name, created_at) VALUES (?, 'w', 0)").run(ws);
    db.sqlite.exec('CREATE TABLE t (v TEXT PRIMARY KEY)');
    batcher = new WriteBatcher(db.sqlite);
    tally = new UsageTally(new SqliteExecutor(db.sqlite));
    batcher.addTail(tally);
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sums a batch per workspace and month, inside the transaction, and adds to earlier batches', async () => {
    const insert = db.sqlite.prepare('INSERT INTO t (v) VALUES (?)');
    const unit = (v: string, ws: string, at: number) => batcher.run(() => (insert.run(v), tally.count(ws, at)));
    await Promise.all([unit('1', 'ws_a', nov), unit('2', 'ws_a', nov), unit('3', 'ws_b', nov), unit('4', 'ws_a', dec)]);
    expect(batcher.stats.batches).toBe(1);
    expect(counts()).toEqual([
      { ws: 'ws_a', month: '2026-11', events: 2 },
      { ws: 'ws_a', month: '2026-12', events: 1 },
      { ws: 'ws_b', month: '2026-11', events: 1 },
    ]);
    await Promise.all([unit('5', 'ws_a', nov), unit('6', 'ws_a', nov)]);
    expect(counts()[0]).toEqual({ ws: 'ws_a', month: '2026-11', events: 4 });
  });

  it('forgets the event of a unit that failed after counting, and of an abandoned optimistic pass', async () => {
    const insert = db.sqlite.prepare('INSERT INTO t (v) VALUES (?)');
    await batcher.run(() => insert.run('taken'));
    const results = await Promise.allSettled([
      batcher.run(() => (insert.run('a'), tally.count('ws_a', nov))),
      batcher.run(() => {
        tally.count('ws_a', nov);
        insert.run('taken'); // UNIQUE constraint: the unit fails after counting
      }),
      batcher.run(() => (insert.run('b'), tally.count('ws_b', nov))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batcher.stats.replays).toBe(1);
    expect(counts()).toEqual([
      { ws: 'ws_a', month: '2026-11', events: 1 },
      { ws: 'ws_b', month: '2026-11', events: 1 },
    ]);
  });

  it('stores nothing when the batch does not commit', async () => {
    const other = openDb(path.join(dir, 'db.sqlite'), { migrate: false });
    other.sqlite.exec('BEGIN IMMEDIATE'); // holds the write lock: BEGIN IMMEDIATE of the batch times out
    other.sqlite.pragma('busy_timeout = 0');
    db.sqlite.pragma('busy_timeout = 0');
    const result = await batcher.run(() => tally.count('ws_a', nov)).then(
      () => 'committed',
      () => 'failed',
    );
    other.sqlite.exec('ROLLBACK');
    other.close();
    expect(result).toBe('failed');
    expect(counts()).toEqual([]);
    await batcher.run(() => tally.count('ws_b', nov));
    expect(counts()).toEqual([{ ws: 'ws_b', month: '2026-11', events: 1 }]);
  });
});
