import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/db/sqlite/alert-store/index.js';
import { PgWebhookWrites } from '../../src/db/pg/alert-store/webhook-writes.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import type { NewStandardAlert, WebhookAlertWrites } from '../../src/domain/alert-store.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * Plain webhook alerts of concurrent requests are written in batches on both engines (SQLite's
 * group commit, PostgreSQL's InsertBatcher): many alerts per transaction, each promise settled after
 * its batch's COMMIT. The contract: every alert stored exactly once with all its rows, numbered in
 * submission order within its channel, usage exact; a unit that fails inside a batch fails alone.
 */
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }, { id: 'w2', name: 'Beta', created_at: 1 }]],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'One', slug: 'one', icon: '', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Two', slug: 'two', icon: '', is_private: false, webhook_token: 'whk_2', created_at: 2 },
    { id: 'ch3', workspace_id: 'w2', name: 'Three', slug: 'three', icon: '', is_private: false, webhook_token: 'whk_3', created_at: 3 },
  ]],
];
const NOW = Date.UTC(2026, 10, 27, 12);
const NEXT_MONTH = Date.UTC(2026, 11, 1, 0, 0, 1);
const CHANNEL_WORKSPACE: Record<string, string> = { ch1: 'w1', ch2: 'w1', ch3: 'w2' };

const alert = (id: string, channelId: string, over: Partial<NewStandardAlert> = {}): NewStandardAlert => ({
  alertId: id,
  channelId,
  workspaceId: CHANNEL_WORKSPACE[channelId]!,
  content: {
    title: `title ${id}`, level: 'INFO', emoji: '', message: null, fieldsJson: null, linkUrl: null, linkText: null, source: null,
    metadataJson: null, actorJson: null, workflowRunId: null, workflowState: null, workflowStepsJson: null, workflowError: null, dedupKey: null,
  },
  attachments: [],
  notify: 'alert.created',
  now: NOW,
  ...over,
});

interface Engine extends EngineHandle {
  writes: WebhookAlertWrites;
  otherWrites: WebhookAlertWrites;
  /** Transactions written so far by `writes` (its batcher's count). */
  batches(): number;
}

const idOf = (i: number) => `alt_b${String(i).padStart(3, '0')}`;

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const n = async (sql: string, params: unknown[] = []) => Number((await e.query<{ n: number }>(`SELECT count(*) AS n FROM ${sql}`, params))[0]!.n);
  const seqs = async (channelId: string) =>
    (await e.query<{ id: string; seq: number }>('SELECT id, seq FROM alerts WHERE channel_id = ? ORDER BY seq', [channelId])).map((r) => [r.id, Number(r.seq)]);

  it('writes 90 concurrent alerts over three channels and two workspaces in far fewer transactions, every row of each one', async () => {
    const before = e.batches();
    const channels = ['ch1', 'ch2', 'ch3', 'ch2', 'ch1', 'ch3'];
    const items = Array.from({ length: 90 }, (_, i) => alert(idOf(i), channels[i % channels.length]!, {
      attachments: i % 10 === 0 ? [{ mediaKey: `m${i}`, mime: 'image/png', kind: 'image', name: `f${i}.png`, size: i }] : [],
      idempotency: i % 3 === 0 ? { key: `k${i}`, hash: `h${i}`, answer: (s) => ({ id: s.alertId }) } : undefined,
      now: i < 80 ? NOW : NEXT_MONTH,
    }));
    const stored = await Promise.all(items.map((a) => e.writes.insertAlert(a)));
    expect(stored).toEqual(items.map((a) => ({ alertId: a.alertId, created: true })));
    expect(e.batches() - before).toBeLessThan(10);

    // Numbered 1..n in each channel, in the order the alerts were submitted.
    for (const ch of ['ch1', 'ch2', 'ch3']) {
      const mine = items.filter((a) => a.channelId === ch).map((a, i) => [a.alertId, i + 1]);
      expect(await seqs(ch)).toEqual(mine);
      expect(await e.query('SELECT seq_max AS m, alert_count AS c FROM channel_stats WHERE channel_id = ?', [ch])).toEqual([{ m: 30, c: 30 }]);
    }
    expect(await n('alert_events')).toBe(90);
    // The change log in submission order within each channel (a live stream's order).
    for (const ch of ['ch1', 'ch2', 'ch3']) {
      const logged = (await e.query<{ a: string }>('SELECT alert_id AS a FROM alert_events WHERE channel_id = ? ORDER BY id', [ch])).map((r) => r.a);
      expect(logged).toEqual(items.filter((a) => a.channelId === ch).map((a) => a.alertId));
    }
    expect(await n("notification_jobs WHERE kind = 'alert.created' AND state = 'pending'")).toBe(90);
    expect(await e.query('SELECT alert_id AS a, media_key AS k FROM alert_attachments ORDER BY alert_id'))
      .toEqual(items.filter((a) => a.attachments.length).map((a) => ({ a: a.alertId, k: a.attachments[0]!.mediaKey })));
    expect(await e.otherWrites.idempotentAnswer('ch1', 'k0')).toMatchObject({ requestHash: 'h0', json: `{"id":"${idOf(0)}"}` });
    expect(await n('idempotency_keys')).toBe(30);
    expect(await e.query('SELECT workspace_id AS w, month, events FROM usage_counters ORDER BY workspace_id, month')).toEqual([
      { w: 'w1', month: '2026-11', events: 54 },
      { w: 'w1', month: '2026-12', events: 6 },
      { w: 'w2', month: '2026-11', events: 26 },
      { w: 'w2', month: '2026-12', events: 4 },
    ]);
  });

  it('fails only the unit that fails: the others of its batch are stored once, and the failed one leaves no row and no number', async () => {
    const items = Array.from({ length: 12 }, (_, i) => alert(`alt_f${String(i).padStart(2, '0')}`, i % 2 ? 'ch1' : 'ch3', {
      idempotency: { key: `f${i}`, hash: 'h', answer: i === 5 ? () => { throw new Error('answer failed'); } : () => 'ok' },
    }));
    const results = await Promise.allSettled(items.map((a) => e.writes.insertAlert(a)));
    expect(results.map((r) => r.status)).toEqual(items.map((_, i) => (i === 5 ? 'rejected' : 'fulfilled')));
    expect((results[5] as PromiseRejectedResult).reason).toMatchObject({ message: 'answer failed' });
    expect(await n('alerts WHERE id = ?', ['alt_f05'])).toBe(0);
    expect(await n("alerts WHERE id LIKE 'alt_f%'")).toBe(11);
    expect(await n("alert_events WHERE alert_id LIKE 'alt_f%'")).toBe(11);
    expect(await n("notification_jobs WHERE alert_id LIKE 'alt_f%'")).toBe(11);
    expect(await n("idempotency_keys WHERE key LIKE 'f%'")).toBe(11);
    // ch1 had 30: its five stored units took 31..35, with no hole where the failed one was.
    expect((await seqs('ch1')).slice(30)).toEqual(['alt_f01', 'alt_f03', 'alt_f07', 'alt_f09', 'alt_f11'].map((id, i) => [id, 31 + i]));
    expect(await e.query('SELECT events FROM usage_counters WHERE workspace_id = ? AND month = ?', ['w1', '2026-11'])).toEqual([{ events: 59 }]);
  });

  it('two nodes batching into the same channels in opposite orders at once: no deadlock, distinct numbers, every unit whole', async () => {
    const a = Array.from({ length: 40 }, (_, i) => alert(`alt_x${String(i).padStart(2, '0')}`, i % 2 ? 'ch1' : 'ch2'));
    const b = Array.from({ length: 40 }, (_, i) => alert(`alt_y${String(i).padStart(2, '0')}`, i % 2 ? 'ch2' : 'ch1'));
    await Promise.all([...a.map((x) => e.writes.insertAlert(x)), ...b.map((x) => e.otherWrites.insertAlert(x))]);
    for (const ch of ['ch1', 'ch2']) {
      const numbers = (await seqs(ch)).map(([, s]) => s);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    }
    expect(await n("alerts WHERE id LIKE 'alt_x%' OR id LIKE 'alt_y%'")).toBe(80);
    expect(await n("alert_events WHERE alert_id LIKE 'alt_x%' OR alert_id LIKE 'alt_y%'")).toBe(80);
  });
}

describe('insert batches: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    const batcher = new WriteBatcher(h.db.sqlite);
    const store = new SqliteAlertStore(h.db.sqlite, batcher);
    const other = new SqliteAlertStore(h.other.sqlite, new WriteBatcher(h.other.sqlite));
    return { ...h, writes: store.webhook, otherWrites: other.webhook, batches: () => batcher.stats.batches };
  });
});

describePg('insert batches: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    const writes = new PgWebhookWrites(h.db.pool);
    return { ...h, writes, otherWrites: new PgWebhookWrites(h.other.pool), batches: () => writes.batcher.stats.batches };
  });
});
