import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { MAIL_SEND_LEASE_MS, SqlOutbox } from '../../src/db/shared/outbox.js';
import type { OutboxJob } from '../../src/domain/alert-store.js';
import { floodStep } from '../../src/notify/outbox/flood-guard.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, type Fixture } from './engines.js';

/**
 * Two nodes (two pools on one database) running the e-mail worker's steps on the same rows at
 * once, many times over: each job is fanned out once, each delivery and digest claimed once, and
 * the flood guard counts one recipient's e-mails as one node would.
 */
const T0 = Date.UTC(2026, 10, 20, 12);
const USERS = ['u1', 'u2', 'u3', 'u4'];
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', USERS.map((id) => ({ id, email: `${id}@a.test`, name: id, created_at: 1 }))],
  ['channels', [{ id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 }]],
  ['alerts', [{ id: 'a1', channel_id: 'ch1', kind: 'standard', level: 'INFO', title: 't', emoji: '', message: 'm', activity_key: 'a1', seq: 0, created_at: T0, updated_at: T0 }]],
];

/** Counts how often each key was handed out. */
class Tally {
  readonly counts = new Map<string, number>();
  add(key: string) {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  get twice() {
    return [...this.counts].filter(([, n]) => n !== 1);
  }
}

describePg('outbox on PostgreSQL: two nodes racing for the same rows', () => {
  let h: Awaited<ReturnType<typeof pgEngine>>;
  let nodes: SqlOutbox[];
  beforeAll(async () => {
    h = await pgEngine(FIXTURE);
    nodes = [new SqlOutbox(new PgExecutor(h.db.pool)), new SqlOutbox(new PgExecutor(h.other.pool))];
  });
  afterAll(() => h.close());

  it('fans every job out once and claims every delivery and digest exactly once, round after round', async () => {
    for (let round = 0; round < 8; round++) {
      const now = T0 + round * 1000;
      const first = round * 100 + 1;
      await h.exec(
        `INSERT INTO notification_jobs (id, alert_id, channel_id, kind, state, attempts, next_attempt_at, created_at)
         SELECT g, 'a1', 'ch1', 'alert.created', 'pending', 0, ?, ? FROM generate_series(?::bigint, ?::bigint) g`,
        [now, now, first, first + 24],
      );
      await h.exec(
        `INSERT INTO notification_digests (user_id, channel_id, window_start, window_end, state, attempts, next_attempt_at, created_at, updated_at)
         SELECT 'u1', 'ch1', 0, 0, 'pending', 0, ?, ?, ? FROM generate_series(?::bigint, ?::bigint) g`,
        [now, now, now, first, first + 24],
      );
      const planned = new Tally();
      const plan = (job: OutboxJob) => {
        planned.add(String(job.id));
        return { deliverTo: USERS, note: null };
      };
      await Promise.all(nodes.map(async (n) => Promise.all((await n.dueJobs(now, 1000)).map((id) => n.fanOut(id, now, plan)))));
      expect(planned.counts.size).toBe(25);
      expect(planned.twice).toEqual([]);

      const claimed = new Tally();
      await Promise.all(
        nodes.map(async (n) => {
          const [deliveries, digests] = await Promise.all([n.dueDeliveries(now, 1000), n.dueDigests(now, 1000)]);
          await Promise.all([
            ...deliveries.map(async (d) => {
              const c = await n.claimDelivery(d.jobId, d.userId, now, () => ({ send: `${d.jobId}:${d.userId}`, flood: null }));
              if (c) claimed.add(c.value);
            }),
            ...digests.map(async (id) => {
              const c = await n.claimDigest(id, now, () => ({ send: `digest ${id}` }));
              if (c) claimed.add(c.value);
            }),
          ]);
        }),
      );
      expect(claimed.twice).toEqual([]);
      expect(claimed.counts.size).toBe(25 * USERS.length + 25);
      const states = await h.query<{ state: string; attempts: number; n: number }>(
        `SELECT state, attempts, count(*) AS n FROM notification_deliveries WHERE job_id BETWEEN ? AND ? GROUP BY state, attempts`,
        [first, first + 24],
      );
      expect(states).toEqual([{ state: 'sending', attempts: 1, n: 25 * USERS.length }]);
    }
  });

  it("counts one recipient's e-mails claimed on both nodes at once as one node would: the limit sent, the rest in one digest", async () => {
    const now = T0 + 3600_000;
    await h.exec(
      `INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at)
       SELECT g, 'u2', 'ch1', 'a1', 'pending', 0, ?, ?, ? FROM generate_series(10001, 10040) g`,
      [now, now, now],
    );
    const due = await nodes[0]!.dueDeliveries(now, 1000);
    expect(due).toHaveLength(40);
    const results = await Promise.all(
      due.flatMap((d) => nodes.map((n) => n.claimDelivery(d.jobId, d.userId, now, (c) => ({ send: d.jobId, flood: floodStep(c.window, now, 5, 60_000) })))),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(5);
    expect(await h.query('SELECT state, count(*) AS n, count(DISTINCT digest_id) AS d FROM notification_deliveries WHERE job_id > 10000 GROUP BY state ORDER BY state')).toEqual([
      { state: 'folded', n: 35, d: 1 },
      { state: 'sending', n: 5, d: 0 },
    ]);
    expect(await h.query("SELECT sent FROM notification_flood_windows WHERE user_id = 'u2'")).toEqual([{ sent: 5 }]);
  });

  it('never folds an e-mail into a digest another node has already claimed: every folded alert is in the digest sent', async () => {
    await h.exec(`INSERT INTO alerts (id, channel_id, kind, level, title, emoji, message, activity_key, seq, created_at, updated_at)
      SELECT 'r' || g, 'ch1', 'standard', 'INFO', 't', '', 'm', 'r' || g, 0, ?, ? FROM generate_series(1, 30) g`, [T0, T0]);
    for (let round = 0; round < 6; round++) {
      const now = T0 + 4 * 3600_000 + round * 1000;
      await h.exec("DELETE FROM notification_flood_windows WHERE user_id = 'u4'");
      const id = (await h.query<{ id: number }>(
        `INSERT INTO notification_digests (user_id, channel_id, window_start, window_end, state, attempts, next_attempt_at, created_at, updated_at)
         VALUES ('u4', 'ch1', ?, ?, 'pending', 0, ?, ?, ?) RETURNING id`,
        [now, now + 60_000, now, now, now],
      ))[0]!.id;
      await h.exec("INSERT INTO notification_flood_windows (user_id, channel_id, window_start, window_end, sent, digest_id) VALUES ('u4', 'ch1', ?, ?, 5, ?)", [now, now + 60_000, id]);
      const first = 30_000 + round * 100;
      await h.exec(
        `INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at)
         SELECT ? + g, 'u4', 'ch1', 'r' || g, 'pending', 0, ?, ?, ? FROM generate_series(1, 30) g`,
        [first, now, now, now],
      );
      let seen: string[] | null = null;
      const claimDigest = (n: SqlOutbox) => n.claimDigest(id, now, (c) => {
        seen = c.alerts.map((a) => a.id);
        return { send: true };
      });
      await Promise.all([
        ...Array.from({ length: 30 }, (_, g) => nodes[g % 2]!.claimDelivery(first + g + 1, 'u4', now, (c) => ({ send: g, flood: floodStep(c.window, now, 5, 60_000) }))),
        new Promise((r) => setTimeout(r, round)).then(() => claimDigest(nodes[round % 2]!)),
      ]);
      // A claim holding the digest FOR SHARE makes the digest's claim skip it; it is due again and goes next time.
      if (seen === null) expect(await claimDigest(nodes[0]!)).not.toBeNull();
      const folded = await h.query<{ a: string }>('SELECT alert_id AS a FROM notification_deliveries WHERE digest_id = ? ORDER BY alert_id', [id]);
      expect({ round, alerts: seen }).toEqual({ round, alerts: folded.map((r) => r.a) });
    }
  });

  it("recovers only rows claimed longer ago than the send lease: another node's send in progress is left to it", async () => {
    const now = T0 + 7200_000;
    await h.exec(
      `INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at)
       VALUES (20001, 'u3', 'ch1', 'a1', 'pending', 0, ?, ?, ?)`,
      [now, now, now],
    );
    expect(await nodes[0]!.claimDelivery(20001, 'u3', now, () => ({ send: 1, flood: null }))).toEqual({ value: 1, attempts: 1 });
    // All rows from the first test are still sending too, claimed earlier than this one.
    const older = (await h.query<{ n: number }>("SELECT count(*) AS n FROM notification_deliveries WHERE state = 'sending' AND updated_at < ?", [now]))[0]!.n;
    const digests = (await h.query<{ n: number }>("SELECT count(*) AS n FROM notification_digests WHERE state = 'sending' AND updated_at < ?", [now]))[0]!.n;
    // A second node starting a minute later takes the rows claimed two hours ago, not this one ...
    expect(older).toBeGreaterThan(0);
    expect(await nodes[1]!.recoverInterrupted('interrupted', now + 60_000)).toBe(older + digests);
    expect(await h.query("SELECT state FROM notification_deliveries WHERE job_id = 20001")).toEqual([{ state: 'sending' }]);
    // ... nor past the lease less a millisecond; the node that claimed it records the send.
    expect(await nodes[1]!.recoverInterrupted('interrupted', now + MAIL_SEND_LEASE_MS)).toBe(0);
    const short = new SqlOutbox(new PgExecutor(h.other.pool), { sendLeaseMs: 1000 });
    expect(await short.recoverInterrupted('interrupted', now + 1000)).toBe(0);
    expect(await short.recoverInterrupted('interrupted', now + 1001)).toBe(1);
    expect(await h.query("SELECT state, last_error AS r FROM notification_deliveries WHERE job_id = 20001")).toEqual([{ state: 'failed', r: 'interrupted' }]);
  });
});
