import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/db/sqlite/alert-store/index.js';
import { PgAlertReads } from '../../src/db/pg/alert-store/reads.js';
import { PgAlertRetention } from '../../src/db/pg/alert-store/retention.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import type { AlertReads, AlertRetention, PrunedBatch } from '../../src/domain/alert-store.js';
import { idTimeBound } from '../../src/lib/ids.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';
import { pgFault, sqliteFault, type DeleteEventFault } from './faults.js';

/**
 * One contract, two engines, for retention's batches: oldest first, never a running workflow run,
 * attachments and read exceptions with their alert, an `alert.deleted` change each, the media keys
 * released, unread counts exact for a reader whose watermark sits among the deleted alerts and for
 * one who never read, and a failed batch leaving every row in place.
 */
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
/** The id of an alert created on day `d` (ids start with their creation time, as src/lib/ids.ts makes them). */
const id = (d: number) => `${idTimeBound('alt', T0 + d * DAY)}${String(d).padStart(16, '0')}`;
const a = (d: number, channel = 'ch1', state: string | null = null) => ({
  id: id(d), channel_id: channel, kind: 'standard', title: `day ${d}`, level: 'INFO', emoji: '', activity_key: id(d),
  workflow_run_id: state ? `run${d}` : null, workflow_state: state, created_at: T0 + d * DAY, updated_at: T0 + d * DAY,
});
const f = (d: number, key: string, position = 0) => ({ alert_id: id(d), position, media_key: key, mime: 'image/png', kind: 'image', name: key, size: 1 });

const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }, { id: 'u2', email: 'm@a.test', name: 'Member', created_at: 1 }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }, { workspace_id: 'w1', user_id: 'u2', role: 'member', created_at: 1 }]],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Other', slug: 'other', icon: '🔥', is_private: false, webhook_token: 'whk_2', created_at: 2 },
  ]],
  // Numbered 1..10 in this order by the insert trigger; day 3 is a running run, day 4 a finished one.
  ['alerts', [a(1), a(2), a(3, 'ch1', 'running'), a(4, 'ch1', 'passed'), a(5), a(6), a(7), a(8), a(9), a(10), a(0, 'ch2'), ...[11, 12, 13, 14, 15, 16].map((d) => a(d, 'ch2'))]],
  ['alert_attachments', [f(1, 'k1'), f(2, 'k2'), f(2, 'shared', 1), f(6, 'shared'), f(0, 'other')]],
  // u1 read up to number 5; day 7 (above) read by exception, day 2 (below) unread by exception. u2 never read.
  ['read_marks', [{ user_id: 'u1', channel_id: 'ch1', watermark_seq: 5, gone_above: 0, updated_at: 1 }]],
  ['read_exceptions', [
    { user_id: 'u1', alert_id: id(7), channel_id: 'ch1', seq: 7, is_read: true },
    { user_id: 'u1', alert_id: id(2), channel_id: 'ch1', seq: 2, is_read: false },
  ]],
];

interface Engine extends EngineHandle {
  retention: AlertRetention;
  /** The same deletes through a second connection (another node). */
  otherRetention: AlertRetention;
  reads: AlertReads;
  fault: DeleteEventFault;
}

type Counted = { n: number };
function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const unread = async () =>
    Promise.all(['u1', 'u2'].map(async (userId) => (await e.reads.visibleChannels({ tokenId: 't', userId, workspaceId: 'w1' })).find((c) => c.id === 'ch1')!.unread));
  const left = async () => (await e.query<{ id: string }>('SELECT id FROM alerts WHERE channel_id = ? ORDER BY id', ['ch1'])).map((r) => r.id);
  const deletedEvents = async () => (await e.query<{ a: string }>("SELECT alert_id AS a FROM alert_events WHERE type = 'alert.deleted' ORDER BY id")).map((r) => r.a);
  const count = async (sql: string, params: unknown[] = []) => Number((await e.query<Counted>(`SELECT count(*) AS n FROM ${sql}`, params))[0]!.n);
  const plain = (b: PrunedBatch) => {
    expect(b.unitMs).toBeGreaterThanOrEqual(0);
    return { deleted: b.deleted, released: [...b.released].sort() };
  };

  it('starts from the seeded read state', async () => {
    expect(await unread()).toEqual([5, 10]);
  });

  it('leaves every row in place when the batch fails', async () => {
    await e.fault.on();
    try {
      await expect(e.retention.pruneBatch('ch1', { olderThan: T0 + 5.5 * DAY, keepNewest: null }, 2, T0)).rejects.toThrow(/refused/);
    } finally {
      await e.fault.off();
    }
    expect(await left()).toHaveLength(10);
    expect(await count('alert_attachments')).toBe(5);
    expect(await count('read_exceptions')).toBe(2);
    expect(await deletedEvents()).toEqual([]);
    expect(await unread()).toEqual([5, 10]);
  });

  it('prunes by age oldest first, a batch at most, with files, exceptions and a change each', async () => {
    expect(plain(await e.retention.pruneBatch('ch1', { olderThan: T0 + 5.5 * DAY, keepNewest: null }, 2, T0))).toEqual({ deleted: 2, released: ['k1', 'k2', 'shared'] });
    expect(await deletedEvents()).toEqual([id(1), id(2)]);
    expect(await count('alert_attachments WHERE alert_id IN (?, ?)', [id(1), id(2)])).toBe(0);
    expect(await count('read_exceptions')).toBe(1);
    // Both below u1's watermark; day 2 was unread by exception.
    expect(await unread()).toEqual([4, 8]);
  });

  it('steps over a running run, and reports the channel done with a short batch', async () => {
    expect(plain(await e.otherRetention.pruneBatch('ch1', { olderThan: T0 + 5.5 * DAY, keepNewest: null }, 10, T0))).toEqual({ deleted: 2, released: [] });
    expect(await left()).toEqual([3, 6, 7, 8, 9, 10].map(id));
    expect(await deletedEvents()).toEqual([1, 2, 4, 5].map(id));
    expect(plain(await e.retention.pruneBatch('ch1', { olderThan: T0 + 5.5 * DAY, keepNewest: null }, 10, T0))).toEqual({ deleted: 0, released: [] });
    expect(await unread()).toEqual([4, 6]);
  });

  it('keeps the newest N: the running run keeps counting in the prefix it is not deleted from', async () => {
    // Six left, keep 3: the 3 oldest are day 3 (running), 6 and 7.
    expect(plain(await e.retention.pruneBatch('ch1', { olderThan: null, keepNewest: 3 }, 10, T0))).toEqual({ deleted: 2, released: ['shared'] });
    expect(await left()).toEqual([3, 8, 9, 10].map(id));
    // Above u1's watermark: one unread (day 6), one read by exception (day 7).
    expect(await unread()).toEqual([3, 4]);
    expect(await count('read_exceptions')).toBe(0);
    expect(plain(await e.retention.pruneBatch('ch1', { olderThan: null, keepNewest: 3 }, 10, T0))).toEqual({ deleted: 0, released: [] });
  });

  it('applies both rules in one batch, the count rule seeing what the age rule left', async () => {
    expect(plain(await e.retention.pruneBatch('ch1', { olderThan: T0 + 9.5 * DAY, keepNewest: 1 }, 10, T0))).toEqual({ deleted: 2, released: [] });
    expect(await left()).toEqual([3, 10].map(id));
    expect(await unread()).toEqual([1, 2]);
    expect(await e.query('SELECT alert_count AS n FROM channel_stats WHERE channel_id = ?', ['ch1'])).toEqual([{ n: 2 }]);
    expect(await e.query("SELECT type, count(*) AS n FROM alert_events GROUP BY type")).toEqual([{ type: 'alert.deleted', n: 8 }]);
    // The other channel was never touched.
    expect(await count('alerts WHERE channel_id = ?', ['ch2'])).toBe(7);
    expect(await count('alert_attachments WHERE media_key = ?', ['other'])).toBe(1);
  });

  it('deletes each alert once when two nodes prune one channel at once', async () => {
    const rule = { olderThan: T0 + 20 * DAY, keepNewest: 1 };
    const batches = await Promise.all([e.retention, e.otherRetention, e.retention, e.otherRetention].map((r) => r.pruneBatch('ch2', rule, 10, T0)));
    expect(batches.reduce((sum, b) => sum + b.deleted, 0)).toBe(7);
    expect(batches.flatMap((b) => b.released)).toEqual(['other']);
    const events = await e.query<{ a: string }>("SELECT alert_id AS a FROM alert_events WHERE channel_id = ? AND type = 'alert.deleted'", ['ch2']);
    expect(events.map((r) => r.a).sort()).toEqual([0, 11, 12, 13, 14, 15, 16].map(id));
    expect(await e.query('SELECT alert_count AS n FROM channel_stats WHERE channel_id = ?', ['ch2'])).toEqual([{ n: 0 }]);
  });
}

describe('retention contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    const store = new SqliteAlertStore(h.db.sqlite, new WriteBatcher(h.db.sqlite));
    const other = new SqliteAlertStore(h.other.sqlite, new WriteBatcher(h.other.sqlite));
    return { ...h, retention: store.retention, otherRetention: other.retention, reads: store.reads, fault: sqliteFault(h) };
  });
});

describePg('retention contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    return { ...h, retention: new PgAlertRetention(h.db.pool), otherRetention: new PgAlertRetention(h.other.pool), reads: new PgAlertReads(h.db.pool), fault: pgFault(h) };
  });
});
