import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgFirstStart } from '../../src/db/pg/first-start.js';
import { SqliteFirstStart } from '../../src/db/sqlite/first-start.js';
import type { FirstStartUnit } from '../../src/domain/account-rows.js';
import { Accounts } from '../../src/domain/accounts.js';
import { ManualClock } from '../../src/lib/clock.js';
import { IdGenerator } from '../../src/lib/ids.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle } from './engines.js';

/**
 * The first start's set-up (src/bootstrap.ts) as one unit on both engines: it runs only on an
 * empty installation, everything it writes commits together or not at all, and on PostgreSQL
 * several nodes starting at once on an empty database set it up exactly once.
 */
const clock = new ManualClock(Date.UTC(2026, 10, 25, 8));
const setUp = (unit: FirstStartUnit, fail = false) =>
  unit.ifEmpty(async (rows) => {
    const accounts = new Accounts(rows, new IdGenerator(() => clock.now()), clock, 'ab_');
    const workspace = await accounts.createWorkspace('My workspace');
    const user = await accounts.createUser('owner@example.test', 'Owner');
    await accounts.addMember(workspace.id, user.id, 'owner');
    if (fail) throw new Error('disk full');
    await accounts.createChannel({ workspaceId: workspace.id, name: 'general', icon: '📢' });
    return workspace.id;
  });

type Engine = EngineHandle & { unit: FirstStartUnit };
function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const counts = async () => {
    const n = async (table: string) => Number((await e.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
    return { workspaces: await n('workspaces'), users: await n('users'), memberships: await n('memberships'), channels: await n('channels') };
  };

  it('a failure half-way leaves nothing, so the next start sets up from scratch', async () => {
    await expect(setUp(e.unit, true)).rejects.toThrow('disk full');
    expect(await counts()).toEqual({ workspaces: 0, users: 0, memberships: 0, channels: 0 });
  });

  it('sets up an empty installation once; a later start finds the workspace and does nothing', async () => {
    const id = await setUp(e.unit);
    expect(id).toMatch(/^ws_/);
    expect(await counts()).toEqual({ workspaces: 1, users: 1, memberships: 1, channels: 1 });
    expect(await setUp(e.unit)).toBeNull();
    expect(await counts()).toEqual({ workspaces: 1, users: 1, memberships: 1, channels: 1 });
  });
}

describe('first start contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine([]);
    return { ...h, unit: new SqliteFirstStart(h.db.sqlite) };
  });
});

describePg('first start contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine([]);
    return { ...h, unit: new PgFirstStart(h.db.pool) };
  });

  it('five nodes starting together on an empty database: exactly one sets it up', async () => {
    const h = await pgEngine([]);
    const pools = Array.from({ length: 5 }, () => new pg.Pool({ connectionString: h.url, max: 2 }).on('error', () => {}));
    for (const p of pools) p.on('error', () => {});
    try {
      const results = await Promise.all(pools.map((p) => setUp(new PgFirstStart(p))));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(await h.query<{ n: number }>('SELECT count(*)::int AS n FROM workspaces')).toEqual([{ n: 1 }]);
      expect(await h.query<{ n: number }>('SELECT count(*)::int AS n FROM channels')).toEqual([{ n: 1 }]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await h.close();
    }
  });
});
