import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlUsageRows } from '../../src/db/shared/usage-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import { AppError } from '../../src/domain/errors.js';
import { Usage, type UsageRows } from '../../src/domain/usage.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the usage report: the same counters on SQLite and PostgreSQL,
 * the same answers through the real Usage use case (the alert store writes the counters; here a
 * second connection stands in for it, as another node would).
 */
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }, { id: 'w2', name: 'Quiet', created_at: 2 }, { id: 'w3', name: 'Other', created_at: 3 }]],
  ['usage_counters', [
    { workspace_id: 'w1', month: '2026-09', events: 7 },
    { workspace_id: 'w1', month: '2026-11', events: 12 },
    { workspace_id: 'w1', month: '2025-12', events: 1 },
    { workspace_id: 'w3', month: '2026-11', events: 99 },
  ]],
];

interface Engine extends EngineHandle {
  rows: UsageRows;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  let usage: Usage;
  beforeAll(async () => {
    e = await open();
    usage = new Usage(e.rows);
  });
  afterAll(() => e.close());

  it("reports a workspace's own months, newest first", async () => {
    expect(await usage.report('w1')).toEqual({
      workspaceId: 'w1',
      months: [{ month: '2026-11', events: 12 }, { month: '2026-09', events: 7 }, { month: '2025-12', events: 1 }],
    });
  });

  it('a workspace with no traffic has an empty report; an unknown one is not found', async () => {
    expect(await usage.report('w2')).toEqual({ workspaceId: 'w2', months: [] });
    const err: unknown = await usage.report('w_nope').catch((x: unknown) => x);
    expect(err instanceof AppError ? [err.code, err.detail] : err).toEqual(['not-found', 'workspace w_nope not found']);
  });

  it('sees counters written by another connection at once', async () => {
    await e.exec('UPDATE usage_counters SET events = events + 1 WHERE workspace_id = ? AND month = ?', ['w1', '2026-11']);
    await e.exec('INSERT INTO usage_counters (workspace_id, month, events) VALUES (?, ?, ?)', ['w2', '2026-11', 3]);
    expect((await usage.report('w1')).months[0]).toEqual({ month: '2026-11', events: 13 });
    expect((await usage.report('w2')).months).toEqual([{ month: '2026-11', events: 3 }]);
  });
}

describe('usage rows on SQLite', () => {
  contract(async () => {
    const e = await sqliteEngine(FIXTURE);
    return { ...e, rows: new SqlUsageRows(new SqliteExecutor(e.db.sqlite)) };
  });
});

describePg('usage rows on PostgreSQL', () => {
  contract(async () => {
    const e = await pgEngine(FIXTURE);
    return { ...e, rows: new SqlUsageRows(new PgExecutor(e.db.pool)) };
  });
});
