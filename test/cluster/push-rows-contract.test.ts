import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlPushOutbox } from '../../src/db/shared/push-outbox.js';
import { SqlPushSubscriptionRows } from '../../src/db/shared/push-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { PushSubscriptionRows } from '../../src/domain/push.js';
import type { PushClaimInput, PushOutbox } from '../../src/domain/push-outbox.js';
import { pushFloodStep } from '../../src/notify/push/push-sender.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for Web Push's rows: subscriptions (one per endpoint, a limit per
 * user) and the push outbox the push worker drives (claimed once, outcomes, flood windows, crash
 * recovery, pruning). Rows are checked through another connection.
 */
const T0 = Date.UTC(2026, 10, 20, 12);
const DAY = 24 * 3600_000;
const sub = (id: string, user: string, createdAt: number) => ({
  id, user_id: user, endpoint: `https://push.test/${id}`, p256dh: `p-${id}`, auth: `a-${id}`, device: 'Firefox on Linux', created_at: createdAt,
});
const push = (job: number, subscription: string, user: string, alert: string, next = T0) => ({
  job_id: job, subscription_id: subscription, user_id: user, channel_id: 'ch1', alert_id: alert, kind: 'alert.created', state: 'pending', attempts: 0,
  next_attempt_at: next, created_at: T0, updated_at: T0,
});
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', ['u1', 'u2', 'u3'].map((id) => ({ id, email: `${id}@a.test`, name: id, created_at: 1 }))],
  ['channels', [{ id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 }]],
  ['alerts', ['a1', 'a2'].map((id, i) => ({
    id, channel_id: 'ch1', kind: 'standard', level: 'ERROR', title: `title ${id}`, emoji: '', message: 'm', activity_key: id, seq: 0, created_at: T0 + i, updated_at: T0 + i,
  }))],
  ['push_subscriptions', [sub('ps2', 'u1', 2), sub('ps1', 'u1', 1), sub('ps3', 'u2', 3)]],
  ['push_deliveries', [push(1, 'ps1', 'u1', 'a1'), push(1, 'ps2', 'u1', 'a1'), push(1, 'ps3', 'u2', 'a1'), push(2, 'ps1', 'u1', 'a2', T0 + 10)]],
];

interface Engine extends EngineHandle {
  subs: PushSubscriptionRows;
  otherSubs: PushSubscriptionRows;
  outbox: PushOutbox;
  otherOutbox: PushOutbox;
}

const newSub = (id: string, userId: string, endpoint: string) => ({ id, userId, endpoint, p256dh: `p-${id}`, auth: `a-${id}`, device: 'Chrome on Android', createdAt: T0 });

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const row = async (sql: string, params: unknown[] = []) => (await e.query(sql, params))[0];
  const pushRow = (job: number, s: string) =>
    row('SELECT state, attempts, next_attempt_at AS next, last_error AS error, updated_at AS t FROM push_deliveries WHERE job_id = ? AND subscription_id = ?', [job, s]);

  it('lists a user\'s devices oldest first, never the keys', async () => {
    expect(await e.subs.list('u1')).toEqual([
      { id: 'ps1', device: 'Firefox on Linux', createdAt: 1, lastSuccessAt: null, lastError: null },
      { id: 'ps2', device: 'Firefox on Linux', createdAt: 2, lastSuccessAt: null, lastError: null },
    ]);
    expect(await e.subs.list('nobody')).toEqual([]);
  });

  it('keeps one row per endpoint, at most the limit per user, and lets another user take a browser over', async () => {
    expect(await e.subs.upsert(newSub('ps9', 'u3', 'https://push.test/shared'), 2)).toEqual({ id: 'ps9', created: true });
    expect(await e.otherSubs.upsert({ ...newSub('psX', 'u3', 'https://push.test/shared'), p256dh: 'new key' }, 2)).toEqual({ id: 'ps9', created: false });
    expect(await row('SELECT user_id AS u, p256dh AS k FROM push_subscriptions WHERE endpoint = ?', ['https://push.test/shared'])).toEqual({ u: 'u3', k: 'new key' });
    expect(await e.subs.upsert(newSub('psY', 'u3', 'https://push.test/other'), 1)).toBe('limit');
    // u1 has two devices: taking the shared browser over needs room for a third.
    expect(await e.subs.upsert(newSub('psZ', 'u1', 'https://push.test/shared'), 2)).toBe('limit');
    expect(await e.otherSubs.upsert(newSub('psZ', 'u1', 'https://push.test/shared'), 3)).toEqual({ id: 'ps9', created: false });
    expect((await e.subs.list('u1')).map((d) => d.id)).toEqual(['ps1', 'ps2', 'ps9']);
    expect(await e.subs.list('u3')).toEqual([]);
    expect(await e.subs.remove('u3', 'ps9')).toBe(false);
    expect(await e.subs.removeEndpoint('u3', 'https://push.test/shared')).toBe(false);
    expect(await e.otherSubs.removeEndpoint('u1', 'https://push.test/shared')).toBe(true);
    expect(await e.subs.remove('u1', 'ps9')).toBe(false);
    expect(await e.subs.upsert(newSub('ps8', 'u3', 'https://push.test/eight'), 2)).toEqual({ id: 'ps8', created: true });
    expect(await e.subs.remove('u3', 'ps8')).toBe(true);
  });

  it('claims a push once, deciding on the row, alert, channel, subscription and flood window', async () => {
    const due = await e.outbox.due(T0, 10);
    expect(due.map((t) => `${t.jobId}:${t.subscriptionId}`).sort()).toEqual(['1:ps1', '1:ps2', '1:ps3']);
    expect(await e.outbox.due(T0 + 10, 10)).toHaveLength(4);
    expect(await e.outbox.due(T0 + 10, 2)).toHaveLength(2);
    const seen: Omit<PushClaimInput, 'alert'>[] = [];
    const claim = await e.outbox.claim({ jobId: 1, subscriptionId: 'ps1' }, T0 + 5, (c) => {
      seen.push({ delivery: c.delivery, channel: c.channel, subscription: c.subscription, window: c.window });
      expect(c.alert?.title).toBe('title a1');
      return { send: 'push 1', flood: pushFloodStep(c.window, T0 + 5, 1, 60_000) };
    });
    expect(claim).toEqual({ value: 'push 1', attempts: 1 });
    expect(seen).toEqual([{
      delivery: { jobId: 1, subscriptionId: 'ps1', userId: 'u1', channelId: 'ch1', alertId: 'a1', kind: 'alert.created', attempts: 0 },
      channel: { name: 'Deploys', slug: 'deploys', icon: '🚀', workspaceName: 'Acme' },
      subscription: { endpoint: 'https://push.test/ps1', p256dh: 'p-ps1', auth: 'a-ps1' },
      window: undefined,
    }]);
    expect(await pushRow(1, 'ps1')).toMatchObject({ state: 'sending', attempts: 1, t: T0 + 5 });
    expect(await e.otherOutbox.claim({ jobId: 1, subscriptionId: 'ps1' }, T0 + 6, () => { throw new Error('not decided again'); })).toBeNull();

    // Past the limit a push still goes, as the quiet summary: the window counts it as folded.
    const folded = await e.otherOutbox.claim({ jobId: 1, subscriptionId: 'ps2' }, T0 + 6, (c) => ({ send: c.window, flood: pushFloodStep(c.window, T0 + 6, 1, 60_000) }));
    expect(folded).toEqual({ value: { windowStart: T0 + 5, windowEnd: T0 + 60_005, sent: 1, folded: 0 }, attempts: 1 });
    expect(await row("SELECT sent, folded FROM push_flood_windows WHERE user_id = 'u1'")).toEqual({ sent: 1, folded: 1 });

    expect(await e.outbox.claim({ jobId: 1, subscriptionId: 'ps3' }, T0 + 7, () => ({ skip: 'recipient can no longer see the channel' }))).toBeNull();
    expect(await pushRow(1, 'ps3')).toMatchObject({ state: 'skipped', attempts: 0, error: 'recipient can no longer see the channel' });
    expect(await e.outbox.due(T0 + 10, 10)).toEqual([{ jobId: 2, subscriptionId: 'ps1' }]);
  });

  it('records a retry (claimed again without the window), a send and a failure on the subscription too', async () => {
    await e.outbox.recordRetry({ jobId: 1, subscriptionId: 'ps1' }, T0 + 1000, '503', T0 + 20);
    expect(await pushRow(1, 'ps1')).toMatchObject({ state: 'pending', attempts: 1, next: T0 + 1000, error: '503' });
    expect(await e.outbox.nextDue()).toBe(T0 + 10);
    let window: PushClaimInput['window'] | null = null;
    expect(await e.otherOutbox.claim({ jobId: 1, subscriptionId: 'ps1' }, T0 + 1000, (c) => {
      window = c.window;
      return { send: 2, flood: null };
    })).toEqual({ value: 2, attempts: 2 });
    expect(window).toBeUndefined();
    await e.outbox.recordFailed({ jobId: 1, subscriptionId: 'ps2' }, '400 bad payload', T0 + 1001);
    expect(await pushRow(1, 'ps2')).toMatchObject({ state: 'failed', error: '400 bad payload' });
    expect(await row("SELECT last_success_at AS ok, last_error AS r FROM push_subscriptions WHERE id = 'ps2'")).toEqual({ ok: null, r: '400 bad payload' });
    await e.outbox.recordSent({ jobId: 1, subscriptionId: 'ps1' }, T0 + 1002);
    expect(await pushRow(1, 'ps1')).toMatchObject({ state: 'sent', error: null, t: T0 + 1002 });
    await e.outbox.recordSent({ jobId: 1, subscriptionId: 'ps2' }, T0 + 1003);
    expect(await row("SELECT last_success_at AS ok, last_error AS r FROM push_subscriptions WHERE id = 'ps2'")).toEqual({ ok: T0 + 1003, r: null });
  });

  it('drops a subscription the push service says is gone, with its pushes', async () => {
    await e.otherOutbox.removeSubscription('ps3');
    expect(await e.query("SELECT job_id FROM push_deliveries WHERE subscription_id = 'ps3'")).toEqual([]);
    expect(await e.subs.list('u2')).toEqual([]);
  });

  it('records pushes left sending by a node that stopped mid-request as failed, never resent', async () => {
    await e.exec("UPDATE push_deliveries SET state = 'sending', attempts = 1, updated_at = ? WHERE job_id = 2", [T0 + 10]);
    expect(await e.outbox.recoverInterrupted('interrupted', T0 + DAY)).toBe(1);
    expect(await pushRow(2, 'ps1')).toMatchObject({ state: 'failed', error: 'interrupted', t: T0 + DAY });
    expect(await e.outbox.recoverInterrupted('interrupted', T0 + DAY)).toBe(0);
    expect(await e.outbox.due(T0 + DAY, 10)).toEqual([]);
    expect(await e.outbox.nextDue()).toBeNull();
  });

  it('prunes finished pushes and ended windows', async () => {
    await e.exec("INSERT INTO push_deliveries (job_id, subscription_id, user_id, channel_id, alert_id, kind, state, attempts, next_attempt_at, created_at, updated_at) VALUES (3, 'ps1', 'u1', 'ch1', 'a1', 'alert.created', 'pending', 0, ?, ?, ?)", [T0, T0, T0]);
    await e.outbox.prune(T0 + 2000, T0 + 60_004);
    expect(await e.query('SELECT job_id AS j, subscription_id AS s FROM push_deliveries ORDER BY job_id')).toEqual([{ j: 2, s: 'ps1' }, { j: 3, s: 'ps1' }]);
    expect(await e.query('SELECT user_id AS u FROM push_flood_windows')).toEqual([{ u: 'u1' }]);
    await e.outbox.prune(T0 + 2 * DAY, T0 + 60_006);
    expect(await e.query('SELECT job_id AS j FROM push_deliveries')).toEqual([{ j: 3 }]);
    expect(await e.query('SELECT user_id AS u FROM push_flood_windows')).toEqual([]);
  });
}

describe('push rows contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    return {
      ...h,
      subs: new SqlPushSubscriptionRows(new SqliteExecutor(h.db.sqlite)),
      otherSubs: new SqlPushSubscriptionRows(new SqliteExecutor(h.other.sqlite)),
      outbox: new SqlPushOutbox(new SqliteExecutor(h.db.sqlite)),
      otherOutbox: new SqlPushOutbox(new SqliteExecutor(h.other.sqlite)),
    };
  });
});

describePg('push rows contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    return {
      ...h,
      subs: new SqlPushSubscriptionRows(new PgExecutor(h.db.pool)),
      otherSubs: new SqlPushSubscriptionRows(new PgExecutor(h.other.pool)),
      outbox: new SqlPushOutbox(new PgExecutor(h.db.pool)),
      otherOutbox: new SqlPushOutbox(new PgExecutor(h.other.pool)),
    };
  });
});
