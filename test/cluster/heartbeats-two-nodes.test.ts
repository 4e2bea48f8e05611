import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startBackground } from '../../src/runtime.js';
import { createEngineHarness, seedWorkspace, type Harness, type HarnessNode } from '../helpers/harness.js';
import { describePg } from '../helpers/pg.js';
import { eventually } from '../helpers/poll.js';

const MIN = 60_000;

/**
 * Two nodes on one PostgreSQL database: however the timer's passes interleave (a leader change
 * mid-pass, both nodes passing at once), an overdue check goes down once, its alert is written
 * once, and coming back up (pinged on the other node) resolves it once.
 */
describePg('heartbeats on two PostgreSQL nodes', () => {
  let h: Harness;
  let b: HarnessNode;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 8, 0));
  beforeAll(async () => {
    h = await createEngineHarness('postgres', { overrides: { clock } });
    b = await h.node({ overrides: { clock } });
    seed = await seedWorkspace(h.services);
  });
  afterAll(async () => h?.close());

  it('one alert and one resolution, whichever node passes or is pinged', async () => {
    const checks = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((n) => h.services.heartbeats.checks.create({ channelId: seed.general.id, name: `job ${n}`, period: '5m', grace: '1m' })),
    );
    for (const c of checks) expect((await fetch(`${h.base}/ping/${c.pingUuid}`)).status).toBe(200);
    clock.advance(6 * MIN);
    const [ra, rb] = await Promise.all([h.services.heartbeats.timer.pass(), b.services.heartbeats.timer.pass()]);
    expect(ra.wentDown + rb.wentDown).toBe(5);
    // A third pass after both (a new leader's first pass) finds nothing owed.
    expect(await b.services.heartbeats.timer.pass()).toEqual({ wentDown: 0, alertsWritten: 0 });
    const open = await h.query<{ title: string; status: string }>(`SELECT title, status FROM alerts WHERE channel_id = '${seed.general.id}'`);
    expect(open.map((x) => x.title).sort()).toEqual(checks.map((c) => `${c.name} is down`).sort());
    const outbox = await h.count('notification_jobs');
    expect(outbox).toBe(5);

    // Back up through the other node: one resolution each, however many passes follow.
    for (const c of checks) expect((await fetch(`${b.base}/ping/${c.pingUuid}`)).status).toBe(200);
    await Promise.all([h.services.heartbeats.timer.pass(), b.services.heartbeats.timer.pass()]);
    const after = await h.query<{ status: string }>(`SELECT status FROM alerts WHERE channel_id = '${seed.general.id}'`);
    expect(after.map((x) => x.status)).toEqual(Array(5).fill('resolved'));
    expect(await h.count('notification_jobs')).toBe(10);
  });

  it('only the leader runs the timer: a check goes down at its due time with the real clock', async () => {
    // Real time here: both nodes' background parts, only the leader's timer runs.
    const { systemClock } = await import('../../src/lib/clock.js');
    const real = await h.restart({ overrides: { clock: systemClock } });
    const other = await h.node({ overrides: { clock: systemClock } });
    const bgs = [await startBackground(real.services), await startBackground(other.services)];
    try {
      const c = await real.services.heartbeats.checks.create({ channelId: seed.deploys.id, name: 'every second', period: '1s', grace: '1s' });
      expect((await fetch(`${other.base}/ping/${c.pingUuid}`)).status).toBe(200);
      const [alert] = await eventually(
        async () => {
          const rows = await h.query<{ title: string }>(`SELECT title FROM alerts WHERE channel_id = '${seed.deploys.id}'`);
          return rows.length ? rows : undefined;
        },
        'the leader marks the check down',
        { timeoutMs: 15_000 },
      );
      expect(alert!.title).toBe('every second is down');
      expect([real.services.leadership.isLeader, other.services.leadership.isLeader].filter(Boolean)).toHaveLength(1);
    } finally {
      for (const bg of bgs) await bg.stop();
    }
  });
  it('a start ping on a node that is not the leader wakes the leader’s timer for its grace', async () => {
    const { systemClock } = await import('../../src/lib/clock.js');
    const one = await h.restart({ overrides: { clock: systemClock } });
    const two = await h.node({ overrides: { clock: systemClock } });
    const bgs = [await startBackground(one.services), await startBackground(two.services)];
    try {
      await eventually(() => (one.services.leadership.isLeader || two.services.leadership.isLeader ? true : undefined), 'a leader', { timeoutMs: 15_000 });
      const [leader, follower] = one.services.leadership.isLeader ? [one, two] : [two, one];
      const heard: number[] = [];
      leader.services.bus.on('heartbeat-due', (at: number) => heard.push(at));
      const c = await leader.services.heartbeats.checks.create({ channelId: seed.deploys.id, name: 'started, never finished', period: '1h', grace: '1s' });
      // Up, due in an hour; then a run starts on the other node and has one second to finish.
      expect((await fetch(`${follower.base}/ping/${c.pingUuid}`)).status).toBe(200);
      expect(heard).toEqual([]);
      const started = Date.now();
      expect((await fetch(`${follower.base}/ping/${c.pingUuid}/start`)).status).toBe(200);
      await eventually(() => (heard.length ? true : undefined), 'the leader hears the due time', { timeoutMs: 5_000 });
      expect(heard[0]! - started).toBeGreaterThanOrEqual(900);
      expect(heard[0]! - started).toBeLessThan(2_000);
      await eventually(
        async () => ((await h.query<{ status: string }>('SELECT status FROM heartbeat_checks WHERE id = ?', [c.id]))[0]?.status === 'down' ? true : undefined),
        'the leader marks the run down',
        { timeoutMs: 15_000 },
      );
    } finally {
      for (const bg of bgs) await bg.stop();
    }
  });
});
