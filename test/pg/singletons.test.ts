import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgLeaderLock } from '../../src/db/pg/leader.js';
import { LEADER_LOCK } from '../../src/db/shared/advisory-locks.js';
import { LeadershipSignal, whileLeader, type LeaderPart } from '../../src/lib/singletons.js';
import { eventually } from '../helpers/poll.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/**
 * The singletons (the Discord gateway, retention, maintenance) on a cluster: the node holding the
 * leader lock runs them, the others do not, and when the leader's session ends its parts stop
 * before another node starts its own.
 */
describePg('singletons on the leader node', () => {
  let fresh: FreshDatabase;
  beforeAll(async () => {
    fresh = await freshDatabase();
  });
  afterAll(() => fresh.drop());

  it('exactly one node runs the gateway; when its session is cut it stops, and another node starts it', async () => {
    const timeline: string[] = [];
    let live = 0;
    let maxLive = 0;
    const node = (name: string) => {
      const lead = new LeadershipSignal();
      const lock = new PgLeaderLock({ url: fresh.url, key: LEADER_LOCK, intervalMs: 100, onChange: (l) => lead.set(l) });
      const part = whileLeader(lead, 'discord', async () => {
        live++;
        maxLive = Math.max(maxLive, live);
        timeline.push(`${name} connects`);
        return { name: 'discord', stop: async () => void (live--, timeline.push(`${name} disconnects`)) };
      }, { debug: () => {}, info: () => {}, error: () => {} });
      return { name, lock, part };
    };
    const nodes = [node('A'), node('B'), node('C')];
    const running = () => nodes.filter((n) => n.part.running);
    try {
      for (const n of nodes) n.lock.start();
      const first = await eventually(() => running()[0], 'a node running the gateway', { seen: () => timeline });
      // Give the followers several attempts at the lock: still one gateway.
      await eventually(() => nodes.every((n) => n.lock.backendPid !== undefined), 'every node connected');
      await new Promise((r) => setTimeout(r, 300));
      expect(running()).toEqual([first]);

      const maxLiveBeforeCut = maxLive;
      const admin = new pg.Client({ connectionString: fresh.url });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [first.lock.backendPid]);
      await admin.end();
      await eventually(() => timeline.includes(`${first.name} disconnects`), 'the old leader to disconnect', { seen: () => timeline });
      const next = await eventually(() => running()[0], 'another node running the gateway', { seen: () => timeline });
      expect(running()).toEqual([next]);
      // Until the cut, one gateway at a time (after it the old one may still be closing while the
      // new one connects: the server hands the lock over as soon as the old session is gone).
      expect(maxLiveBeforeCut).toBe(1);
    } finally {
      await Promise.all(nodes.map((n: { lock: PgLeaderLock; part: LeaderPart }) => Promise.all([n.part.stop(), n.lock.stop()])));
    }
    expect(live).toBe(0);
  });
});
