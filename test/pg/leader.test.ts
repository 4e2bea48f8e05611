import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgLeaderLock } from '../../src/db/pg/leader.js';
import { LEADER_LOCK } from '../../src/db/shared/advisory-locks.js';
import { eventually } from '../helpers/poll.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/** Singletons' leader election: one leader at a time; when the leader dies, another node takes over. */
describePg('leader election on PostgreSQL', () => {
  let fresh: FreshDatabase;
  beforeAll(async () => {
    fresh = await freshDatabase();
  });
  afterAll(() => fresh.drop());

  const node = (name: string, changes: string[]) =>
    new PgLeaderLock({ url: fresh.url, key: LEADER_LOCK, intervalMs: 100, onChange: (leader) => changes.push(`${name}:${leader}`) });

  it('kill -9 of the leader process: exactly one of the other nodes takes over', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/leader-node.ts'), fresh.url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const changes: string[] = [];
    const nodes = [node('B', changes), node('C', changes)];
    try {
      await eventually(() => out.includes('leader'), 'the first node to lead', { timeoutMs: 15_000, seen: () => out });
      for (const n of nodes) n.start();
      // Both have connected and tried the lock at least once: neither leads while the first lives.
      await eventually(() => nodes.every((n) => n.backendPid !== undefined), 'the other nodes to connect');
      // Both others have asked for the lock (and been refused); the leader's own session now runs its periodic check instead.
      await eventually(async () => (await lockAttempts(fresh.url, nodes.map((n) => n.backendPid!))) === 2, 'the other nodes to have asked for the lock');
      expect(nodes.filter((n) => n.isLeader)).toEqual([]);

      child.kill('SIGKILL');
      // The bound is 15 s; here the interval is 100 ms, so it takes a fraction of a second.
      const next = await eventually(() => nodes.find((n) => n.isLeader), 'another node to take over', { timeoutMs: 15_000, seen: () => changes });
      expect(nodes.filter((n) => n.isLeader)).toEqual([next]);
      expect(changes.filter((c) => c.endsWith(':true'))).toHaveLength(1);
    } finally {
      child.kill('SIGKILL');
      await Promise.all(nodes.map((n) => n.stop()));
    }
  });

  it('a leader whose connection is cut steps down at once, and one node leads again', async () => {
    const changes: string[] = [];
    const nodes = [node('A', changes), node('B', changes)];
    try {
      for (const n of nodes) n.start();
      const first = await eventually(() => nodes.find((n) => n.isLeader), 'a leader');
      const admin = new pg.Client({ connectionString: fresh.url });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [first.backendPid]);
      await admin.end();
      const name = nodes[0] === first ? 'A' : 'B';
      await eventually(() => changes.includes(`${name}:false`), 'the old leader to step down', { seen: () => changes });
      await eventually(() => nodes.filter((n) => n.isLeader).length === 1, 'one leader again', { seen: () => changes });
    } finally {
      await Promise.all(nodes.map((n) => n.stop()));
    }
  });
});

/** Sessions on the database other than this one that are in or have run a query: the contenders. */
/** How many of these backends last ran the lock attempt. */
async function lockAttempts(url: string, pids: number[]): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND query LIKE '%pg_try_advisory_lock%'",
      [pids],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await c.end();
  }
}
