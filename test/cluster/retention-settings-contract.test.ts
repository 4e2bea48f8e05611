import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlRetentionSettings } from '../../src/db/shared/retention-settings.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import { AppError, notFound } from '../../src/domain/errors.js';
import { RetentionSettings, effectiveLimits, type RetentionSettingsRows } from '../../src/domain/retention.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the retention settings: the same rows on SQLite and PostgreSQL,
 * the same answers through the real RetentionSettings use case and the policies the pruner reads.
 * Channel and workspace look-up is the account rows' job, not on PostgreSQL yet: both engines get
 * the same fixed directory of the fixture's channels.
 */
const CHANNELS = [
  { id: 'ch_a', slug: 'alpha', workspaceId: 'w1' },
  { id: 'ch_b', slug: 'beta', workspaceId: 'w1' },
  { id: 'ch_c', slug: 'gamma', workspaceId: 'w2' },
];
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }, { id: 'w2', name: 'Other', created_at: 2 }]],
  ['channels', CHANNELS.map((c, i) => ({ id: c.id, workspace_id: c.workspaceId, name: c.slug, slug: c.slug, icon: '#', is_private: false, webhook_token: `whk_${i}`, created_at: i }))],
];

interface Engine extends EngineHandle {
  rows: RetentionSettingsRows;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  let settings: RetentionSettings;
  const lookup = {
    requireChannel: async (ref: string) => {
      const ch = CHANNELS.find((c) => c.id === ref || c.slug === ref);
      if (!ch) throw notFound(`channel ${ref}`);
      return ch;
    },
    requireWorkspace: async (id: string) => {
      if (!CHANNELS.some((c) => c.workspaceId === id)) throw notFound(`workspace ${id}`);
      return { id };
    },
  };
  beforeAll(async () => {
    e = await open();
    settings = new RetentionSettings(e.rows, lookup);
  });
  afterAll(() => e.close());
  const code = (p: Promise<unknown>) => p.then(() => 'ok', (err: unknown) => (err instanceof AppError ? err.code : String(err)));
  const policies = async () => (await e.rows.policies()).map((r) => ({ channelId: r.channelId, ...effectiveLimits(r) }));

  it('nobody set retention: no channel has a policy', async () => {
    expect(await e.rows.policies()).toEqual([]);
  });

  it("a workspace default applies to its channels; a channel's own value overrides one field at a time", async () => {
    expect(await settings.setWorkspace('w1', { days: 30 })).toEqual({ workspaceId: 'w1', default: { days: 30, maxAlerts: null } });
    expect(await settings.setChannel('alpha', { maxAlerts: 100 })).toEqual({
      channelId: 'ch_a', slug: 'alpha', workspaceId: 'w1',
      setting: { days: 'workspace', maxAlerts: 100 },
      effective: { days: 30, maxAlerts: 100 },
    });
    expect(await policies()).toEqual([
      { channelId: 'ch_a', days: 30, maxAlerts: 100 },
      { channelId: 'ch_b', days: 30, maxAlerts: null },
    ]);
  });

  it('none on a channel lifts the workspace limit there; clear inherits again; a value not given is kept', async () => {
    expect((await settings.setChannel('ch_b', { days: 'none' })).effective).toEqual({ days: null, maxAlerts: null });
    expect(await e.query('SELECT retention_days AS d, retention_max_alerts AS m FROM channels WHERE id = ?', ['ch_b'])).toEqual([{ d: 0, m: null }]);
    expect((await settings.setChannel('alpha', { days: 7 })).setting).toEqual({ days: 7, maxAlerts: 100 });
    expect((await settings.setChannel('alpha', { clear: true })).setting).toEqual({ days: 'workspace', maxAlerts: 'workspace' });
    expect(await policies()).toEqual([
      { channelId: 'ch_a', days: 30, maxAlerts: null },
      { channelId: 'ch_b', days: null, maxAlerts: null },
    ]);
    expect(await settings.setWorkspace('w1', { clear: true })).toEqual({ workspaceId: 'w1', default: { days: null, maxAlerts: null } });
    expect((await e.rows.policies()).map((r) => r.channelId)).toEqual(['ch_b']);
  });

  it('refuses bad input and unknown names, writing nothing', async () => {
    expect(await code(settings.setChannel('alpha', { days: 0 }))).toBe('invalid-body');
    expect(await code(settings.setChannel('alpha', { days: 1.5 }))).toBe('invalid-body');
    expect(await code(settings.setChannel('alpha', { clear: true, days: 3 }))).toBe('invalid-body');
    expect(await code(settings.setWorkspace('w1', {}))).toBe('invalid-body');
    expect(await code(settings.setChannel('nope', { days: 3 }))).toBe('not-found');
    expect(await code(settings.setWorkspace('w_nope', { days: 3 }))).toBe('not-found');
    expect(await e.query('SELECT retention_days AS d, retention_max_alerts AS m FROM channels WHERE id = ?', ['ch_a'])).toEqual([{ d: null, m: null }]);
  });

  it('sees a limit set through another connection at once, as the pruner on any node would', async () => {
    await e.exec('UPDATE workspaces SET retention_max_alerts = ? WHERE id = ?', [50, 'w2']);
    expect(await policies()).toEqual([
      { channelId: 'ch_b', days: null, maxAlerts: null },
      { channelId: 'ch_c', days: null, maxAlerts: 50 },
    ]);
  });
}

describe('retention settings rows on SQLite', () => {
  contract(async () => {
    const e = await sqliteEngine(FIXTURE);
    return { ...e, rows: new SqlRetentionSettings(new SqliteExecutor(e.db.sqlite)) };
  });
});

describePg('retention settings rows on PostgreSQL', () => {
  contract(async () => {
    const e = await pgEngine(FIXTURE);
    return { ...e, rows: new SqlRetentionSettings(new PgExecutor(e.db.pool)) };
  });
});
