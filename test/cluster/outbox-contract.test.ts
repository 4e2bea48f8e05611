import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlOutbox } from '../../src/db/shared/outbox.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { FanOutPlan, FloodWindow, Outbox, OutboxChannel, OutboxDelivery, OutboxDigest, OutboxJob } from '../../src/domain/alert-store.js';
import { floodStep } from '../../src/notify/outbox/flood-guard.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the e-mail outbox the notification worker drives: jobs fanned out
 * once, delivery and digest rows claimed (pending → sending) once, outcomes, the flood guard's
 * windows and digests, crash recovery and pruning. Rows are checked through another connection.
 */
const T0 = Date.UTC(2026, 10, 20, 12);
const alertRow = (id: string, channel: string, level: string, n: number) => ({
  id, channel_id: channel, kind: 'standard', level, title: `title ${id}`, emoji: '', message: `m ${id}`, activity_key: id, seq: 0, created_at: T0 + n, updated_at: T0 + n,
});
const delivery = (job: number, user: string, alert: string, channel = 'ch1') => ({
  job_id: job, user_id: user, channel_id: channel, alert_id: alert, state: 'pending', attempts: 0, next_attempt_at: T0, created_at: T0, updated_at: T0,
});
const OUTBOX_FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', ['u1', 'u2', 'u3'].map((id) => ({ id, email: `${id}@a.test`, name: id, created_at: 1 }))],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Busy', slug: 'busy', icon: '🔥', is_private: false, webhook_token: 'whk_2', created_at: 2 },
  ]],
  ['alerts', [alertRow('a1', 'ch1', 'INFO', 1), alertRow('a2', 'ch1', 'ERROR', 2), alertRow('a3', 'ch1', 'WARNING', 3), alertRow('b1', 'ch2', 'INFO', 4)]],
  ['alert_attachments', [
    { alert_id: 'a1', position: 1, media_key: 'k2', mime: 'image/png', kind: 'image', name: 'two.png', size: 2 },
    { alert_id: 'a1', position: 0, media_key: 'k1', mime: 'image/png', kind: 'image', name: 'one.png', size: 1 },
  ]],
  ['notification_jobs', [
    { id: 1, alert_id: 'a1', channel_id: 'ch1', kind: 'alert.created', state: 'pending', attempts: 0, next_attempt_at: T0, created_at: T0 },
    { id: 2, alert_id: 'a2', channel_id: 'ch1', kind: 'alert.created', state: 'pending', attempts: 0, next_attempt_at: T0 + 1000, created_at: T0 },
    { id: 4, alert_id: 'a2', channel_id: 'ch1', kind: 'workflow.started', state: 'done', attempts: 1, next_attempt_at: T0, created_at: T0 },
  ]],
  ['notification_deliveries', [
    { ...delivery(4, 'u1', 'a2'), state: 'sent', attempts: 1, message_id: '<s@x>' },
    delivery(5, 'u3', 'a1'), delivery(6, 'u3', 'a2'), delivery(7, 'u3', 'a3'),
  ]],
  ['push_subscriptions', [['ps1', 'u1'], ['ps2', 'u1'], ['ps3', 'u2']].map(([id, user]) => ({
    id: id!, user_id: user!, endpoint: `https://push.test/${id}`, p256dh: 'p', auth: 'a', device: 'Firefox on Linux', created_at: 1,
  }))],
];

interface OutboxEngine extends EngineHandle {
  outbox: Outbox;
  /** The same outbox through another connection (another node). */
  other: Outbox;
}

const FLOOD = { limit: 1, windowMs: 60_000 };
const CH1: OutboxChannel = { name: 'Deploys', slug: 'deploys', icon: '🚀', workspaceName: 'Acme' };

function contract(open: () => Promise<OutboxEngine>) {
  let e: OutboxEngine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const row = async (sql: string, params: unknown[]) => (await e.query(sql, params))[0];
  const deliveryRow = (job: number, user: string) =>
    row('SELECT state, attempts, next_attempt_at AS next, last_error AS error, message_id AS mid, digest_id AS digest, updated_at AS t FROM notification_deliveries WHERE job_id = ? AND user_id = ?', [job, user]);
  const plan = (out: FanOutPlan, seen: unknown[]) => (job: OutboxJob, alert: unknown) => {
    seen.push({ job, alert });
    return out;
  };

  it('lists due jobs and work, and the earliest due time, per kind of work', async () => {
    expect(await e.outbox.dueJobs(T0, 10)).toEqual([1]);
    expect(await e.outbox.dueJobs(T0 + 1000, 10)).toEqual([1, 2]);
    expect(await e.outbox.dueJobs(T0 + 1000, 1)).toEqual([1]);
    expect(await e.outbox.nextDue(false)).toBe(T0);
    expect(await e.outbox.anythingDue(T0 - 1, true)).toBe(false);
    expect(await e.outbox.anythingDue(T0, false)).toBe(true);
  });

  it('fans a job out once: delivery rows, a push row per subscription, the job done with its note', async () => {
    const seen: unknown[] = [];
    await e.outbox.fanOut(1, T0 + 5, plan({ deliverTo: ['u1', 'u2', 'u2'], note: 'two recipients', pushTo: ['u1'] }, seen));
    expect(seen).toEqual([
      {
        job: { id: 1, alertId: 'a1', channelId: 'ch1', kind: 'alert.created', createdAt: T0, attempts: 0 },
        alert: { channelId: 'ch1', level: 'INFO', title: expect.any(String) as string, source: null, fieldsJson: null, silencedBy: null },
      },
    ]);
    expect(await e.query('SELECT job_id AS j, user_id AS u, alert_id AS a, state, attempts, next_attempt_at AS n FROM notification_deliveries WHERE job_id = 1 ORDER BY user_id'))
      .toEqual(['u1', 'u2'].map((u) => ({ j: 1, u, a: 'a1', state: 'pending', attempts: 0, n: T0 + 5 })));
    expect(await e.query('SELECT subscription_id AS s, user_id AS u, kind, state FROM push_deliveries WHERE job_id = 1 ORDER BY subscription_id'))
      .toEqual([{ s: 'ps1', u: 'u1', kind: 'alert.created', state: 'pending' }, { s: 'ps2', u: 'u1', kind: 'alert.created', state: 'pending' }]);
    expect(await row('SELECT state, attempts, last_error AS note FROM notification_jobs WHERE id = 1', [])).toEqual({ state: 'done', attempts: 1, note: 'two recipients' });
    await e.other.fanOut(1, T0 + 6, plan({ deliverTo: ['u3'], note: null }, seen));
    expect(seen).toHaveLength(1);
    expect(await e.outbox.retryJob(1, () => ({ giveUp: false, at: 0, reason: 'x' }))).toBeUndefined();
  });

  it('leaves nothing of a fan-out whose plan throws, then retries the job and gives up', async () => {
    await expect(e.outbox.fanOut(2, T0, () => { throw new Error('plan failed'); })).rejects.toThrow('plan failed');
    expect(await row('SELECT count(*) AS n FROM notification_deliveries WHERE job_id = 2', [])).toEqual({ n: 0 });
    expect(await e.outbox.retryJob(2, (n) => ({ giveUp: false, at: T0 + 5000, reason: `boom ${n}` }))).toEqual({ attempts: 1, giveUp: false });
    expect(await row('SELECT state, attempts, next_attempt_at AS n, last_error AS r FROM notification_jobs WHERE id = 2', [])).toEqual({ state: 'pending', attempts: 1, n: T0 + 5000, r: 'boom 1' });
    expect(await e.outbox.dueJobs(T0 + 4999, 10)).toEqual([]);
    expect(await e.other.retryJob(2, (n) => ({ giveUp: true, at: 0, reason: `gave up after ${n}` }))).toEqual({ attempts: 2, giveUp: true });
    expect(await row('SELECT state, last_error AS r FROM notification_jobs WHERE id = 2', [])).toEqual({ state: 'failed', r: 'gave up after 2' });
    expect(await e.outbox.nextDue(false)).toBeNull();
  });

  it('claims a delivery once, deciding on the row, its alert, channel and flood window; a skip is recorded', async () => {
    // Oldest due first (rows due at the same time by job; one job's rows in any order).
    const due = await e.outbox.dueDeliveries(T0 + 5, 10);
    expect(due.slice(0, 3)).toEqual([{ jobId: 5, userId: 'u3' }, { jobId: 6, userId: 'u3' }, { jobId: 7, userId: 'u3' }]);
    expect(due.slice(3).map((d) => d.userId).sort()).toEqual(['u1', 'u2']);
    const inputs: { delivery: OutboxDelivery; alert: string | undefined; channel: OutboxChannel | undefined; window: FloodWindow | undefined }[] = [];
    const claim = await e.outbox.claimDelivery(1, 'u1', T0 + 10, (c) => {
      inputs.push({ delivery: c.delivery, alert: c.alert?.title, channel: c.channel, window: c.window });
      return { send: 'mail for u1', flood: floodStep(c.window, T0 + 10, FLOOD.limit, FLOOD.windowMs) };
    });
    expect(claim).toEqual({ value: 'mail for u1', attempts: 1 });
    expect(inputs).toEqual([{ delivery: { jobId: 1, userId: 'u1', channelId: 'ch1', alertId: 'a1', attempts: 0, kind: 'alert.created' }, alert: 'title a1', channel: CH1, window: undefined }]);
    expect(await deliveryRow(1, 'u1')).toMatchObject({ state: 'sending', attempts: 1, t: T0 + 10 });
    expect(await e.query('SELECT window_start AS s, window_end AS e, sent, digest_id AS d FROM notification_flood_windows WHERE user_id = ?', ['u1'])).toEqual([{ s: T0 + 10, e: T0 + 60_010, sent: 1, d: null }]);
    expect(await e.other.claimDelivery(1, 'u1', T0 + 11, () => { throw new Error('not decided again'); })).toBeNull();
    expect(await e.other.claimDelivery(1, 'u2', T0 + 11, () => ({ skip: 'preference is now "none"' }))).toBeNull();
    expect(await deliveryRow(1, 'u2')).toMatchObject({ state: 'skipped', attempts: 0, error: 'preference is now "none"' });
    expect(await e.outbox.dueDeliveries(T0 + 5, 10)).toEqual([{ jobId: 5, userId: 'u3' }, { jobId: 6, userId: 'u3' }, { jobId: 7, userId: 'u3' }]);
  });

  it('records a retry (claimed again without the window, attempts counted) and a send with its Message-ID', async () => {
    await e.outbox.recordRetry({ jobId: 1, userId: 'u1' }, T0 + 2000, '421 busy', T0 + 20);
    expect(await deliveryRow(1, 'u1')).toMatchObject({ state: 'pending', attempts: 1, next: T0 + 2000, error: '421 busy' });
    expect(await e.outbox.dueDeliveries(T0 + 1999, 10)).not.toContainEqual({ jobId: 1, userId: 'u1' });
    expect(await e.outbox.dueDeliveries(T0 + 2000, 10)).toContainEqual({ jobId: 1, userId: 'u1' });
    let window: FloodWindow | undefined | null = null;
    const again = await e.other.claimDelivery(1, 'u1', T0 + 2000, (c) => {
      window = c.window;
      return { send: c.delivery.attempts, flood: null };
    });
    expect(again).toEqual({ value: 1, attempts: 2 });
    expect(window).toBeUndefined();
    await e.outbox.recordSent({ jobId: 1, userId: 'u1' }, '<n1.u1@x>', T0 + 2100);
    expect(await deliveryRow(1, 'u1')).toMatchObject({ state: 'sent', attempts: 2, mid: '<n1.u1@x>', error: null, t: T0 + 2100 });
    expect(await e.outbox.startedMessageId('a2', 'u1')).toBe('<s@x>');
    expect(await e.outbox.startedMessageId('a2', 'u2')).toBeUndefined();
    expect(await e.outbox.startedMessageId('a1', 'u1')).toBeUndefined();
    expect(await e.outbox.attachmentsOf('a1')).toEqual([
      { alertId: 'a1', position: 0, mediaKey: 'k1', mime: 'image/png', kind: 'image', name: 'one.png', size: 1 },
      { alertId: 'a1', position: 1, mediaKey: 'k2', mime: 'image/png', kind: 'image', name: 'two.png', size: 2 },
    ]);
  });

  it('folds past the flood limit into one digest, due when the window closes and claimed once with its alerts', async () => {
    const claimAt = (o: Outbox, job: number, now: number) =>
      o.claimDelivery(job, 'u3', now, (c) => ({ send: job, flood: floodStep(c.window, now, FLOOD.limit, FLOOD.windowMs) }));
    expect(await claimAt(e.outbox, 5, T0 + 100)).toEqual({ value: 5, attempts: 1 });
    expect(await claimAt(e.other, 6, T0 + 200)).toBeNull();
    expect(await claimAt(e.outbox, 7, T0 + 300)).toBeNull();
    const [d6, d7] = [await deliveryRow(6, 'u3'), await deliveryRow(7, 'u3')];
    expect(d6).toMatchObject({ state: 'folded', attempts: 0 });
    expect(d7).toMatchObject({ state: 'folded', digest: d6!.digest });
    const digestId = Number(d6!.digest);
    expect(await row('SELECT sent, digest_id AS d FROM notification_flood_windows WHERE user_id = ?', ['u3'])).toEqual({ sent: 1, d: digestId });
    expect(await e.outbox.dueDigests(T0 + 60_099, 10)).toEqual([]);
    expect(await e.outbox.dueDigests(T0 + 60_100, 10)).toEqual([digestId]);
    expect(await e.outbox.nextDue(true)).toBe(T0 + 60_100);
    expect(await e.outbox.anythingDue(T0 + 60_099, true)).toBe(false);

    const seen: { digest: OutboxDigest; channel: OutboxChannel | undefined; alerts: string[] }[] = [];
    const claim = await e.other.claimDigest(digestId, T0 + 60_100, (c) => {
      seen.push({ digest: c.digest, channel: c.channel, alerts: c.alerts.map((a) => a.id) });
      return { send: 'digest' };
    });
    const digest = { id: digestId, userId: 'u3', channelId: 'ch1', windowStart: T0 + 100, windowEnd: T0 + 60_100, attempts: 0 };
    expect(claim).toEqual({ value: 'digest', digest, attempts: 1 });
    expect(seen).toEqual([{ digest, channel: CH1, alerts: ['a2', 'a3'] }]);
    expect(await e.outbox.claimDigest(digestId, T0 + 60_101, () => ({ send: 'again' }))).toBeNull();

    // The window's digest left: the next e-mail sees it sending, and the guard opens a new window.
    await e.exec('INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at) VALUES (8, ?, ?, ?, ?, 0, ?, ?, ?)', ['u3', 'ch1', 'a1', 'pending', T0, T0, T0]);
    let window: FloodWindow | undefined;
    await e.outbox.claimDelivery(8, 'u3', T0 + 400, (c) => {
      window = c.window;
      return { send: 8, flood: floodStep(c.window, T0 + 400, FLOOD.limit, FLOOD.windowMs) };
    });
    expect(window).toEqual({ windowStart: T0 + 100, windowEnd: T0 + 60_100, sent: 1, digestId, digestState: 'sending' });
    expect(await row('SELECT window_start AS s, sent, digest_id AS d FROM notification_flood_windows WHERE user_id = ?', ['u3'])).toEqual({ s: T0 + 400, sent: 1, d: null });

    await e.outbox.recordSent({ digestId }, '<digest@x>', T0 + 60_200);
    expect(await row('SELECT state, message_id AS m, attempts FROM notification_digests WHERE id = ?', [digestId])).toEqual({ state: 'sent', m: '<digest@x>', attempts: 1 });
  });

  it('records a skipped digest and failed rows', async () => {
    await e.exec("INSERT INTO notification_digests (id, user_id, channel_id, window_start, window_end, state, attempts, next_attempt_at, created_at, updated_at) VALUES (100, 'u2', 'ch2', ?, ?, 'pending', 0, ?, ?, ?)", [T0, T0, T0, T0, T0]);
    const seen: string[][] = [];
    expect(await e.outbox.claimDigest(100, T0 + 1, (c) => { seen.push(c.alerts.map((a) => a.id)); return { skip: 'channel deleted' }; })).toBeNull();
    expect(seen).toEqual([[]]);
    expect(await row('SELECT state, last_error AS r FROM notification_digests WHERE id = 100', [])).toEqual({ state: 'skipped', r: 'channel deleted' });
    await e.outbox.recordFailed({ jobId: 5, userId: 'u3' }, '550 no such user', T0 + 500);
    expect(await deliveryRow(5, 'u3')).toMatchObject({ state: 'failed', error: '550 no such user', t: T0 + 500 });
  });

  it('records rows left sending by a node that stopped mid-send as failed, never to be resent', async () => {
    // Delivery (8, u3) was claimed at T0 + 400 and never finished; so is a digest.
    await e.exec("INSERT INTO notification_digests (id, user_id, channel_id, window_start, window_end, state, attempts, next_attempt_at, created_at, updated_at) VALUES (101, 'u2', 'ch2', ?, ?, 'sending', 1, ?, ?, ?)", [T0, T0, T0, T0, T0 + 400]);
    const later = T0 + 24 * 3600_000;
    expect(await e.outbox.recoverInterrupted('interrupted', later)).toBe(2);
    expect(await deliveryRow(8, 'u3')).toMatchObject({ state: 'failed', error: 'interrupted', t: later });
    expect(await row('SELECT state, last_error AS r FROM notification_digests WHERE id = 101', [])).toEqual({ state: 'failed', r: 'interrupted' });
    expect(await e.outbox.recoverInterrupted('interrupted', later)).toBe(0);
    expect(await e.outbox.dueDeliveries(later, 10)).toEqual([]);
    expect(await e.outbox.dueDigests(later, 10)).toEqual([]);
    expect(await e.outbox.anythingDue(later, true)).toBe(false);
  });

  it('prunes finished rows created before the bound and flood windows that ended, in one go', async () => {
    await e.exec("INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at) VALUES (2, 'u1', 'ch1', 'a2', 'pending', 0, ?, ?, ?)", [T0, T0, T0]);
    await e.outbox.prune(T0 + 48 * 3600_000, T0 + 60_100);
    // Job 2 keeps its pending row, and the row keeps the job; rows of jobs gone (5 to 8) wait for theirs; finished digests go.
    expect(await e.query('SELECT id FROM notification_jobs ORDER BY id')).toEqual([{ id: 2 }]);
    expect(await e.query('SELECT job_id AS j, user_id AS u FROM notification_deliveries ORDER BY job_id, user_id')).toEqual([
      { j: 2, u: 'u1' }, { j: 5, u: 'u3' }, { j: 6, u: 'u3' }, { j: 7, u: 'u3' }, { j: 8, u: 'u3' },
    ]);
    expect(await e.query('SELECT id FROM notification_digests ORDER BY id')).toEqual([]);
    expect(await e.query('SELECT user_id AS u FROM notification_flood_windows ORDER BY user_id')).toEqual([{ u: 'u3' }]);
  });
}

describe('outbox contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(OUTBOX_FIXTURE);
    return { ...h, outbox: new SqlOutbox(new SqliteExecutor(h.db.sqlite)), other: new SqlOutbox(new SqliteExecutor(h.other.sqlite)) };
  });
});

describePg('outbox contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(OUTBOX_FIXTURE);
    return { ...h, outbox: new SqlOutbox(new PgExecutor(h.db.pool)), other: new SqlOutbox(new PgExecutor(h.other.pool)) };
  });
});
