import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/db/sqlite/alert-store/index.js';
import { PgAlertReads } from '../../src/db/pg/alert-store/reads.js';
import { PgWebhookWrites } from '../../src/db/pg/alert-store/webhook-writes.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import type { AlertContent, AlertReads, NewStandardAlert, RunState, WebhookAlertWrites } from '../../src/domain/alert-store.js';
import { AppError } from '../../src/domain/errors.js';
import { Idempotency } from '../../src/domain/idempotency.js';
import { ManualClock } from '../../src/lib/clock.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the webhook's writes: each method is one unit (every row it
 * writes commits together, or none does), on SQLite through the group-commit batcher and on
 * PostgreSQL as one transaction. Rows are checked through another connection, as another node
 * would read them.
 */
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }]],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Busy', slug: 'busy', icon: '🔥', is_private: false, webhook_token: 'whk_2', created_at: 2 },
  ]],
];
const owner = { tokenId: 't1', userId: 'u1', workspaceId: 'w1' };
const NOW = Date.UTC(2026, 10, 20, 12);

const content = (title: string, run?: { id: string; state: RunState; steps: string | null }): AlertContent => ({
  title, level: 'INFO', emoji: '', message: `message of ${title}`, fieldsJson: '[]', linkUrl: null, linkText: null, source: 'ci',
  actorJson: '{"name":"Ada"}', workflowRunId: run?.id ?? null, workflowState: run?.state ?? null, workflowStepsJson: run?.steps ?? null,
  workflowError: null, dedupKey: null, metadataJson: null,
});
const file = (key: string) => ({ mediaKey: key, mime: 'image/png', kind: 'image' as const, name: `${key}.png`, size: 10 });
const alert = (id: string, over: Partial<NewStandardAlert> = {}): NewStandardAlert => ({
  alertId: id, channelId: 'ch1', workspaceId: 'w1', content: content(`title ${id}`), attachments: [], notify: 'alert.created', now: NOW, ...over,
});

interface Engine extends EngineHandle {
  writes: WebhookAlertWrites;
  /** The same writes through a second connection (another node). */
  otherWrites: WebhookAlertWrites;
  reads: AlertReads;
}

type Counted = { n: number };
function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const count = async (sql: string, params: unknown[] = []) => Number((await e.query<Counted>(`SELECT count(*) AS n FROM ${sql}`, params))[0]!.n);
  const unread = async () => (await e.reads.visibleChannels(owner)).find((c) => c.id === 'ch1')!.unread;

  it('inserts an alert with its files, change event, outbox job, usage count and idempotency answer in one unit', async () => {
    const stored = await e.writes.insertAlert(alert('alt_01', {
      attachments: [file('b'), file('a')],
      idempotency: { key: 'k1', hash: 'h1', answer: (s) => ({ id: s.alertId, created: s.created }) },
    }));
    expect(stored).toEqual({ alertId: 'alt_01', created: true });
    expect(await e.query('SELECT id, channel_id AS c, title, activity_key AS k, seq, created_at AS t FROM alerts')).toEqual([
      { id: 'alt_01', c: 'ch1', title: 'title alt_01', k: 'alt_01', seq: 1, t: NOW },
    ]);
    expect(await e.query('SELECT media_key AS k, position AS p FROM alert_attachments WHERE alert_id = ? ORDER BY position', ['alt_01']))
      .toEqual([{ k: 'b', p: 0 }, { k: 'a', p: 1 }]);
    expect(await e.query('SELECT alert_id AS a, type FROM alert_events ORDER BY id')).toEqual([{ a: 'alt_01', type: 'alert.created' }]);
    expect(await e.query('SELECT alert_id AS a, kind, state FROM notification_jobs')).toEqual([{ a: 'alt_01', kind: 'alert.created', state: 'pending' }]);
    expect(await e.query('SELECT month, events FROM usage_counters WHERE workspace_id = ?', ['w1'])).toEqual([{ month: '2026-11', events: 1 }]);
    expect(await unread()).toBe(1);
  });

  it('stores the idempotent answer with the alert, and the real Idempotency replays it byte for byte', async () => {
    expect(await e.otherWrites.idempotentAnswer('ch1', 'k1')).toEqual({ requestHash: 'h1', json: '{"id":"alt_01","created":true}', createdAt: NOW });
    expect(await e.writes.idempotentAnswer('ch1', 'nope')).toBeUndefined();
    const idem = new Idempotency(e.writes, new ManualClock(NOW + 1000));
    expect(await idem.begin('ch1', 'k1', 'h1')).toEqual({ replayJson: '{"id":"alt_01","created":true}' });
    await expect(idem.begin('ch1', 'k1', 'other body')).rejects.toMatchObject({ code: 'idempotency-key-reused' });
  });

  it('starts a run, then updates it in place: stored steps kept, the decision made on the stored state, resurfacing makes it unread', async () => {
    const seen: RunState[] = [];
    const first = await e.writes.saveRun(alert('alt_02', { content: content('build', { id: 'r1', state: 'running', steps: '["lint"]' }), notify: 'workflow.started' }), () => {
      throw new Error('not called for a new run');
    });
    expect(first).toEqual({ alertId: 'alt_02', created: true, notified: true, released: [] });
    await e.reads.markAllRead('u1', ['ch1'], NOW);
    expect(await unread()).toBe(0);

    // Another node finishes the run: new files replace the old, steps null keeps the stored ones.
    await e.otherWrites.saveRun(alert('alt_02', { content: content('build', { id: 'r1', state: 'running', steps: null }), attachments: [file('x')] }), (s) => {
      seen.push(s);
      return { resurfaceAs: null, notify: null };
    });
    expect(await unread()).toBe(0);
    const done = await e.writes.saveRun(
      alert('alt_03', { content: content('build passed', { id: 'r1', state: 'passed', steps: null }), attachments: [file('y')] }),
      (s) => {
        seen.push(s);
        return { resurfaceAs: 'alt_03', notify: 'workflow.finished' };
      },
    );
    expect(seen).toEqual(['running', 'running']);
    expect(done).toEqual({ alertId: 'alt_02', created: false, notified: true, released: ['x'] });
    expect(await e.query('SELECT title, workflow_state AS s, workflow_steps_json AS steps, activity_key AS k, seq FROM alerts WHERE id = ?', ['alt_02']))
      .toEqual([{ title: 'build passed', s: 'passed', steps: '["lint"]', k: 'alt_03', seq: 3 }]);
    expect(await count('alerts WHERE workflow_run_id = ?', ['r1'])).toBe(1);
    expect(await unread()).toBe(1);
    expect(await e.query('SELECT kind FROM notification_jobs WHERE alert_id = ? ORDER BY id', ['alt_02'])).toEqual([{ kind: 'workflow.started' }, { kind: 'workflow.finished' }]);
    expect(await e.query('SELECT type FROM alert_events WHERE alert_id = ? ORDER BY id', ['alt_02']))
      .toEqual([{ type: 'alert.created' }, { type: 'alert.updated' }, { type: 'alert.updated' }]);
    expect(await e.query('SELECT media_key AS k FROM alert_attachments WHERE alert_id = ?', ['alt_02'])).toEqual([{ k: 'y' }]);
  });

  it('leaves nothing behind when a unit fails: a refusing decision, or a failure after the alert row was written', async () => {
    const before = await e.query('SELECT (SELECT count(*) FROM alerts) AS a, (SELECT count(*) FROM alert_events) AS ev, (SELECT count(*) FROM notification_jobs) AS j, (SELECT count(*) FROM alert_attachments) AS f, (SELECT count(*) FROM idempotency_keys) AS i');
    const usage = await e.query('SELECT events FROM usage_counters');
    await expect(e.writes.saveRun(alert('alt_04', { content: content('again', { id: 'r1', state: 'running', steps: null }), idempotency: { key: 'k4', hash: 'h', answer: () => 1 } }), () => {
      throw new AppError('workflow-run-finished');
    })).rejects.toBeInstanceOf(AppError);
    await expect(e.writes.insertAlert(alert('alt_05', {
      attachments: [file('z')],
      idempotency: { key: 'k5', hash: 'h', answer: () => { throw new Error('answer failed'); } },
    }))).rejects.toThrow('answer failed');
    expect(await e.query('SELECT (SELECT count(*) FROM alerts) AS a, (SELECT count(*) FROM alert_events) AS ev, (SELECT count(*) FROM notification_jobs) AS j, (SELECT count(*) FROM alert_attachments) AS f, (SELECT count(*) FROM idempotency_keys) AS i')).toEqual(before);
    expect(await e.query('SELECT events FROM usage_counters')).toEqual(usage);
    expect(await e.query('SELECT title FROM alerts WHERE id = ?', ['alt_02'])).toEqual([{ title: 'build passed' }]);
    // The channel's numbering did not move either: the next alert takes the next number.
    await e.writes.insertAlert(alert('alt_06'));
    expect(await e.query('SELECT seq FROM alerts WHERE id = ?', ['alt_06'])).toEqual([{ seq: 4 }]);
  });

  it('sets the actor avatar once, recording the change', async () => {
    expect(await e.writes.setActorAvatar('alt_06', 'https://a.test/x.png', NOW)).toBe(true);
    expect(await e.writes.setActorAvatar('alt_06', 'https://a.test/y.png', NOW)).toBe(false);
    expect(await e.writes.setActorAvatar('missing', 'https://a.test/y.png', NOW)).toBe(false);
    const [row] = await e.query<{ j: string }>('SELECT actor_json AS j FROM alerts WHERE id = ?', ['alt_06']);
    expect(JSON.parse(row!.j)).toEqual({ name: 'Ada', avatarUrl: 'https://a.test/x.png' });
    expect(await count('alert_events WHERE alert_id = ?', ['alt_06'])).toBe(2);
  });

  it('gives concurrent inserts into one channel from two nodes distinct numbers, every unit whole', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `alt_c${String(i).padStart(2, '0')}`);
    await Promise.all(ids.map((id, i) => (i % 2 ? e.writes : e.otherWrites).insertAlert(alert(id, { channelId: 'ch2' }))));
    const seqs = (await e.query<{ seq: number }>('SELECT seq FROM alerts WHERE channel_id = ? ORDER BY seq', ['ch2'])).map((r) => Number(r.seq));
    expect(seqs).toEqual(ids.map((_, i) => i + 1));
    expect(await e.query('SELECT seq_max AS m, alert_count AS n FROM channel_stats WHERE channel_id = ?', ['ch2'])).toEqual([{ m: 24, n: 24 }]);
    expect(await count('alert_events WHERE channel_id = ?', ['ch2'])).toBe(24);
    expect(await e.query('SELECT month, events FROM usage_counters')).toEqual([{ month: '2026-11', events: 27 }]);
  });

  it('creates a run once when two nodes start it at once: the other updates it in place', async () => {
    const decided: RunState[] = [];
    const start = (w: WebhookAlertWrites, id: string) =>
      w.saveRun(alert(id, { channelId: 'ch2', content: content('race', { id: 'r2', state: 'running', steps: null }), notify: 'workflow.started' }), (s) => {
        decided.push(s);
        return { resurfaceAs: null, notify: null };
      });
    const results = await Promise.all([start(e.writes, 'alt_r1'), start(e.otherWrites, 'alt_r2')]);
    expect(results.map((r) => r.created).sort()).toEqual([false, true]);
    expect(new Set(results.map((r) => r.alertId)).size).toBe(1);
    expect(decided).toEqual(['running']);
    expect(await count('alerts WHERE workflow_run_id = ?', ['r2'])).toBe(1);
    expect(await count('notification_jobs WHERE kind = ? AND channel_id = ?', ['workflow.started', 'ch2'])).toBe(1);
  });

  it('prunes idempotency answers older than the window, sparing long-window keys until theirs', async () => {
    await e.writes.insertAlert(alert('alt_07', { idempotency: { key: 'github-delivery:1', hash: 'h', answer: () => 'ok' } }));
    expect(await e.writes.pruneIdempotentAnswers(NOW + 1, { prefix: 'github-delivery:', before: NOW - 1 })).toBe(1);
    expect(await e.query('SELECT key FROM idempotency_keys')).toEqual([{ key: 'github-delivery:1' }]);
    expect(await e.writes.pruneIdempotentAnswers(NOW + 1)).toBe(1);
  });
}

describe('webhook writes contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    const store = new SqliteAlertStore(h.db.sqlite, new WriteBatcher(h.db.sqlite));
    const other = new SqliteAlertStore(h.other.sqlite, new WriteBatcher(h.other.sqlite));
    return { ...h, writes: store.webhook, otherWrites: other.webhook, reads: store.reads };
  });
});

describePg('webhook writes contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    return { ...h, writes: new PgWebhookWrites(h.db.pool), otherWrites: new PgWebhookWrites(h.other.pool), reads: new PgAlertReads(h.db.pool) };
  });
});
