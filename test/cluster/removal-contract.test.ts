import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/db/sqlite/alert-store/index.js';
import { SqlAlertRemoval } from '../../src/db/shared/alert-removal.js';
import { PgWriteUnits } from '../../src/db/pg/alert-store/unit.js';
import { SqlChannelRemoval } from '../../src/db/shared/alert-removal.js';
import { PgAlertReads } from '../../src/db/pg/alert-store/reads.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import type { AlertReads, AlertRemoval } from '../../src/domain/alert-store.js';
import type { ChannelRemoval } from '../../src/domain/alert-reports.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';
import { pgFault, sqliteFault, type DeleteEventFault } from './faults.js';

/**
 * One contract, two engines, for deleting one alert (moderation) and a whole channel: rows and
 * their cascades gone as another connection sees them, the change recorded, the media keys
 * answered for release, unread counts exact, and a failed unit leaving every row in place.
 */
const NOW = Date.UTC(2026, 10, 20, 12);
const a = (id: string, channel: string, kind = 'standard') => ({
  id, channel_id: channel, kind, title: id, level: 'INFO', emoji: '', activity_key: id, created_at: NOW, updated_at: NOW,
});
const f = (alertId: string, key: string, position = 0) => ({ alert_id: alertId, position, media_key: key, mime: 'image/png', kind: 'image', name: key, size: 1 });

const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }]],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Chat', slug: 'chat', icon: '💬', is_private: true, webhook_token: 'whk_2', created_at: 2 },
  ]],
  ['channel_members', [{ channel_id: 'ch2', user_id: 'u1', created_at: 1 }]],
  ['discord_links', [{ channel_id: 'ch2', discord_channel_id: '1100000000000000002', created_at: 1 }]],
  // ch1 numbered 1..4 in this order.
  ['alerts', [a('alt_1', 'ch1'), a('alt_2', 'ch1', 'chat'), a('alt_3', 'ch1'), a('alt_4', 'ch1'), a('alt_b1', 'ch2'), a('alt_b2', 'ch2', 'chat')]],
  ['alert_attachments', [f('alt_1', 'k1'), f('alt_3', 'k3'), f('alt_3', 'x', 1), f('alt_b1', 'x'), f('alt_b1', 'y', 1), f('alt_b2', 'x')]],
  // u1 read ch1 up to number 2; alt_4 read by exception.
  ['read_marks', [
    { user_id: 'u1', channel_id: 'ch1', watermark_seq: 2, gone_above: 0, updated_at: 1 },
    { user_id: 'u1', channel_id: 'ch2', watermark_seq: 1, gone_above: 0, updated_at: 1 },
  ]],
  ['read_exceptions', [
    { user_id: 'u1', alert_id: 'alt_4', channel_id: 'ch1', seq: 4, is_read: true },
    { user_id: 'u1', alert_id: 'alt_b2', channel_id: 'ch2', seq: 2, is_read: true },
  ]],
  ['idempotency_keys', [{ channel_id: 'ch2', key: 'k', request_hash: 'h', status: 201, response_json: '{}', created_at: NOW }]],
];
const owner = { tokenId: 't1', userId: 'u1', workspaceId: 'w1' };

interface Engine extends EngineHandle {
  removal: AlertRemoval;
  /** The same deletes through a second connection (another node). */
  otherRemoval: AlertRemoval;
  channels: ChannelRemoval;
  reads: AlertReads;
  fault: DeleteEventFault;
}

type Counted = { n: number };
function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const unread = async () => (await e.reads.visibleChannels(owner)).find((c) => c.id === 'ch1')!.unread;
  const count = async (sql: string, params: unknown[] = []) => Number((await e.query<Counted>(`SELECT count(*) AS n FROM ${sql}`, params))[0]!.n);
  const sorted = (r: { channelId: string; released: string[] } | null) => r && { ...r, released: [...r.released].sort() };

  it('leaves the alert and its files in place when the unit fails', async () => {
    await e.fault.on();
    try {
      await expect(e.removal.deleteAlert('alt_3', NOW)).rejects.toThrow(/refused/);
    } finally {
      await e.fault.off();
    }
    expect(await count('alerts WHERE id = ?', ['alt_3'])).toBe(1);
    expect(await count('alert_attachments WHERE alert_id = ?', ['alt_3'])).toBe(2);
    expect(await count('alert_events')).toBe(0);
    expect(await unread()).toBe(1);
  });

  it('deletes one alert of any kind with its files and read exception, recording the change and answering its keys', async () => {
    expect(await unread()).toBe(1);
    // Above the watermark and unread.
    expect(sorted(await e.removal.deleteAlert('alt_3', NOW + 1))).toEqual({ channelId: 'ch1', released: ['k3', 'x'] });
    expect(await unread()).toBe(0);
    // Above the watermark, read by exception.
    expect(await e.otherRemoval.deleteAlert('alt_4', NOW + 2)).toEqual({ channelId: 'ch1', released: [] });
    expect(await count('read_exceptions WHERE alert_id = ?', ['alt_4'])).toBe(0);
    // A chat message, below the watermark.
    expect(await e.removal.deleteAlert('alt_2', NOW + 3)).toEqual({ channelId: 'ch1', released: [] });
    expect(await unread()).toBe(0);
    expect(await e.query('SELECT channel_id AS c, alert_id AS a, type, created_at AS t FROM alert_events ORDER BY id')).toEqual([
      { c: 'ch1', a: 'alt_3', type: 'alert.deleted', t: NOW + 1 },
      { c: 'ch1', a: 'alt_4', type: 'alert.deleted', t: NOW + 2 },
      { c: 'ch1', a: 'alt_2', type: 'alert.deleted', t: NOW + 3 },
    ]);
    expect(await e.query('SELECT alert_id AS a FROM alert_attachments ORDER BY alert_id')).toEqual([
      { a: 'alt_1' }, { a: 'alt_b1' }, { a: 'alt_b1' }, { a: 'alt_b2' },
    ]);
    expect(await e.query('SELECT alert_count AS n FROM channel_stats WHERE channel_id = ?', ['ch1'])).toEqual([{ n: 1 }]);
  });

  it('answers null for an alert that is not there, recording nothing', async () => {
    expect(await e.removal.deleteAlert('alt_3', NOW + 4)).toBeNull();
    expect(await e.otherRemoval.deleteAlert('alt_nope', NOW + 4)).toBeNull();
    expect(await count('alert_events')).toBe(3);
  });

  it('a new alert after the deletes still counts as unread', async () => {
    await e.exec("INSERT INTO alerts (id, channel_id, kind, title, level, emoji, activity_key, created_at, updated_at, seq) VALUES ('alt_5', 'ch1', 'standard', 't', 'INFO', '', 'alt_5', 1, 1, 0)");
    expect(await e.query('SELECT seq FROM alerts WHERE id = ?', ['alt_5'])).toEqual([{ seq: 5 }]);
    expect(await unread()).toBe(1);
  });

  it('deletes a channel with its alerts, files, read state, link and idempotency answers, answering each media key once', async () => {
    expect([...(await e.channels.deleteChannelWithAlerts('ch2'))].sort()).toEqual(['x', 'y']);
    for (const table of ['alerts', 'read_marks', 'read_exceptions', 'idempotency_keys', 'discord_links', 'channel_members', 'channel_stats']) {
      expect(await count(`${table} WHERE channel_id = ?`, ['ch2']), table).toBe(0);
    }
    expect(await count('channels WHERE id = ?', ['ch2'])).toBe(0);
    expect(await count('alert_attachments WHERE alert_id IN (?, ?)', ['alt_b1', 'alt_b2'])).toBe(0);
    // The other channel is untouched.
    expect(await e.query('SELECT id FROM alerts ORDER BY id')).toEqual([{ id: 'alt_1' }, { id: 'alt_5' }]);
    expect(await e.query('SELECT media_key AS k FROM alert_attachments')).toEqual([{ k: 'k1' }]);
    expect(await unread()).toBe(1);
    expect(await e.channels.deleteChannelWithAlerts('ch2')).toEqual([]);
  });
}

describe('alert and channel removal contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    const store = new SqliteAlertStore(h.db.sqlite, new WriteBatcher(h.db.sqlite));
    const other = new SqliteAlertStore(h.other.sqlite, new WriteBatcher(h.other.sqlite));
    return { ...h, removal: store.removal, otherRemoval: other.removal, channels: store.channels, reads: store.reads, fault: sqliteFault(h) };
  });
});

describePg('alert and channel removal contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    return {
      ...h,
      removal: new SqlAlertRemoval(new PgWriteUnits(h.db.pool)),
      otherRemoval: new SqlAlertRemoval(new PgWriteUnits(h.other.pool)),
      channels: new SqlChannelRemoval(new PgWriteUnits(h.db.pool)),
      reads: new PgAlertReads(h.db.pool),
      fault: pgFault(h),
    };
  });
});
