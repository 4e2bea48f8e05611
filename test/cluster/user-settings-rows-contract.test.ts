import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlUserSettingsRows } from '../../src/db/shared/user-settings-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import { AppError } from '../../src/domain/errors.js';
import { UserSettings, type UserSettingsRows } from '../../src/domain/user-settings.js';
import { ManualClock } from '../../src/lib/clock.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for each person's dashboard settings (the feed's density): the same
 * answers through the real UserSettings use case, one row per user, a refused value storing
 * nothing, and the row going with its user.
 */
const FIXTURE: Fixture = [
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }, { id: 'u2', email: 'm@a.test', name: 'Member', created_at: 1 }]],
];

interface Engine extends EngineHandle {
  rows: UserSettingsRows;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  let settings: UserSettings;
  const clock = new ManualClock(Date.UTC(2026, 10, 27));
  beforeAll(async () => {
    e = await open();
    settings = new UserSettings(e.rows, clock);
  });
  afterAll(() => e.close());

  it('nobody chose: cards', async () => {
    expect(await settings.feedDensity('u1')).toBe('cards');
    expect(await e.query('SELECT * FROM user_settings')).toEqual([]);
  });

  it("a choice is one row per user, changed in place; another user's stays theirs", async () => {
    expect(await settings.setFeedDensity('u1', 'compact')).toBe('compact');
    clock.advance(1000);
    await settings.setFeedDensity('u1', 'cards');
    await settings.setFeedDensity('u1', 'compact');
    expect(await settings.feedDensity('u1')).toBe('compact');
    expect(await settings.feedDensity('u2')).toBe('cards');
    const rows = await e.query<{ user_id: string; feed_density: string; updated_at: number }>('SELECT user_id, feed_density, updated_at FROM user_settings');
    expect(rows.map((r) => ({ ...r, updated_at: Number(r.updated_at) }))).toEqual([{ user_id: 'u1', feed_density: 'compact', updated_at: Date.UTC(2026, 10, 27) + 1000 }]);
  });

  it('a value it does not know is refused, naming the field, and stores nothing', async () => {
    const err = await settings.setFeedDensity('u2', 'huge').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid-body');
    expect((err as AppError).extensions.details).toEqual([{ code: 'invalid_value', message: 'density must be one of cards, compact', path: ['density'] }]);
    expect(await e.query('SELECT * FROM user_settings WHERE user_id = ?', ['u2'])).toEqual([]);
  });

  it('goes with its user', async () => {
    await e.exec('DELETE FROM users WHERE id = ?', ['u1']);
    expect(await e.query('SELECT * FROM user_settings')).toEqual([]);
  });
}

describe('user settings rows on SQLite', () => {
  contract(async () => {
    const e = await sqliteEngine(FIXTURE);
    return { ...e, rows: new SqlUserSettingsRows(new SqliteExecutor(e.db.sqlite)) };
  });
});

describePg('user settings rows on PostgreSQL', () => {
  contract(async () => {
    const e = await pgEngine(FIXTURE);
    return { ...e, rows: new SqlUserSettingsRows(new PgExecutor(e.db.pool)) };
  });
});
