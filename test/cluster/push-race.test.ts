import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { PUSH_SEND_LEASE_MS, SqlPushOutbox } from '../../src/db/shared/push-outbox.js';
import { SqlPushSubscriptionRows } from '../../src/db/shared/push-rows.js';
import { pushFloodStep } from '../../src/notify/push/push-sender.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, type Fixture } from './engines.js';

/**
 * Two nodes (two pools on one database) running the push worker's steps on the same rows at once:
 * every push claimed by exactly one node, one user's flood window counted as one node would, and
 * the per-user device limit held when both add devices at once.
 */
const T0 = Date.UTC(2026, 10, 20, 12);
const USERS = ['u1', 'u2', 'u3', 'u4'];
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [...USERS, 'u5', 'u6'].map((id) => ({ id, email: `${id}@a.test`, name: id, created_at: 1 }))],
  ['channels', [{ id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 }]],
  ['alerts', [{ id: 'a1', channel_id: 'ch1', kind: 'standard', level: 'INFO', title: 't', emoji: '', message: 'm', activity_key: 'a1', seq: 0, created_at: T0, updated_at: T0 }]],
  ['push_subscriptions', USERS.map((u) => ({ id: `ps_${u}`, user_id: u, endpoint: `https://push.test/${u}`, p256dh: 'p', auth: 'a', device: 'd', created_at: 1 }))],
];

const newSub = (id: string, userId: string) => ({ id, userId, endpoint: `https://push.test/${id}`, p256dh: 'p', auth: 'a', device: 'd', createdAt: T0 });

describePg('push rows on PostgreSQL: two nodes racing for the same rows', () => {
  let h: Awaited<ReturnType<typeof pgEngine>>;
  let nodes: SqlPushOutbox[];
  beforeAll(async () => {
    h = await pgEngine(FIXTURE);
    nodes = [new SqlPushOutbox(new PgExecutor(h.db.pool)), new SqlPushOutbox(new PgExecutor(h.other.pool))];
  });
  afterAll(() => h.close());

  const insertPushes = (first: number, last: number, users: string[], now: number) =>
    h.exec(
      `INSERT INTO push_deliveries (job_id, subscription_id, user_id, channel_id, alert_id, kind, state, attempts, next_attempt_at, created_at, updated_at)
       SELECT g, s.id, s.user_id, 'ch1', 'a1', 'alert.created', 'pending', 0, ?, ?, ? FROM generate_series(?::bigint, ?::bigint) g
       CROSS JOIN push_subscriptions s WHERE s.user_id = ANY(?::text[])`,
      [now, now, now, first, last, users],
    );

  it('claims every push exactly once, round after round', async () => {
    for (let round = 0; round < 8; round++) {
      const now = T0 + round * 1000;
      await insertPushes(round * 100 + 1, round * 100 + 25, USERS, now);
      const claimed = new Map<string, number>();
      await Promise.all(
        nodes.map(async (n) =>
          Promise.all(
            (await n.due(now, 1000)).map(async (t) => {
              const key = `${t.jobId}:${t.subscriptionId}`;
              const c = await n.claim(t, now, () => ({ send: key, flood: null }));
              if (c) claimed.set(c.value, (claimed.get(c.value) ?? 0) + 1);
            }),
          ),
        ),
      );
      expect([...claimed].filter(([, n]) => n !== 1)).toEqual([]);
      expect(claimed.size).toBe(25 * USERS.length);
    }
    expect(await h.query("SELECT state, attempts, count(*) AS n FROM push_deliveries GROUP BY state, attempts")).toEqual([{ state: 'sending', attempts: 1, n: 8 * 25 * USERS.length }]);
  });

  it("counts one user's pushes claimed on both nodes at once as one node would: the limit notify, the rest fold", async () => {
    const now = T0 + 3600_000;
    await insertPushes(10001, 10040, ['u1'], now);
    const due = await nodes[0]!.due(now, 1000);
    expect(due).toHaveLength(40);
    const results = await Promise.all(
      due.flatMap((t) => nodes.map((n) => n.claim(t, now, (c) => {
        const flood = pushFloodStep(c.window, now, 5, 60_000);
        return { send: flood.kind, flood };
      }))),
    );
    const sent = results.flatMap((r) => (r ? [r.value] : []));
    expect(sent).toHaveLength(40);
    expect(sent.filter((k) => k === 'fold')).toHaveLength(35);
    expect(await h.query("SELECT sent, folded FROM push_flood_windows WHERE user_id = 'u1'")).toEqual([{ sent: 5, folded: 35 }]);
  });

  it('leaves a push another node is sending to it, taking only those claimed longer ago than the lease', async () => {
    const now = T0 + 7200_000;
    await insertPushes(20001, 20001, ['u2'], now);
    expect(await nodes[0]!.claim({ jobId: 20001, subscriptionId: 'ps_u2' }, now, () => ({ send: 1, flood: null }))).toEqual({ value: 1, attempts: 1 });
    const older = (await h.query<{ n: number }>("SELECT count(*) AS n FROM push_deliveries WHERE state = 'sending' AND updated_at < ?", [now]))[0]!.n;
    expect(older).toBeGreaterThan(0);
    expect(await nodes[1]!.recoverInterrupted('interrupted', now + 60_000)).toBe(older);
    expect(await nodes[1]!.recoverInterrupted('interrupted', now + PUSH_SEND_LEASE_MS)).toBe(0);
    expect(await h.query('SELECT state FROM push_deliveries WHERE job_id = 20001')).toEqual([{ state: 'sending' }]);
    expect(await new SqlPushOutbox(new PgExecutor(h.other.pool), { sendLeaseMs: 1000 }).recoverInterrupted('interrupted', now + 1001)).toBe(1);
  });

  it('holds the device limit when both nodes add devices for one user at once, and stores a shared endpoint once', async () => {
    const rows = [new SqlPushSubscriptionRows(new PgExecutor(h.db.pool)), new SqlPushSubscriptionRows(new PgExecutor(h.other.pool))];
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => rows[i % 2]!.upsert(newSub(`psn${i}`, 'u5'), 10)));
    expect(results.filter((r) => r === 'limit')).toHaveLength(14);
    expect(await rows[0]!.list('u5')).toHaveLength(10);

    const same = { endpoint: 'https://push.test/one-browser' };
    const both = await Promise.all([rows[0]!.upsert({ ...newSub('psa', 'u6'), ...same }, 10), rows[1]!.upsert({ ...newSub('psb', 'u4'), ...same }, 10)]);
    expect(both.map((r) => (r === 'limit' ? r : r.created)).sort()).toEqual([false, true]);
    expect(await h.query('SELECT count(*) AS n FROM push_subscriptions WHERE endpoint = ?', [same.endpoint])).toEqual([{ n: 1 }]);
  });
});
