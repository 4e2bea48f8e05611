import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { PgRateLimiter } from '../../src/db/pg/rate-limits.js';
import { countingTokenLookUp } from '../../src/db/pg/token-budget.js';
import { hashToken } from '../../src/domain/tokens.js';
import { ManualClock } from '../../src/lib/clock.js';
import { RateLimiter, type RateDecision } from '../../src/domain/rate-limiter.js';
import { eventually } from '../helpers/poll.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/** Rate limits in cluster mode: two nodes (two pools) spend one budget per key, exactly. */
describePg('rate limits shared by the nodes of a cluster', () => {
  let fresh: FreshDatabase;
  let nodeA: PgDb;
  let nodeB: PgDb;
  beforeAll(async () => {
    fresh = await freshDatabase();
    nodeA = await openPg(fresh.url);
    nodeB = await openPg(fresh.url, { migrate: false });
  });
  afterAll(async () => {
    await nodeA.close();
    await nodeB.close();
    await fresh.drop();
  });

  const count = async (key: string) =>
    (await nodeA.pool.query<{ n: number }>('SELECT coalesce(sum(count), 0)::int AS n FROM rate_limits WHERE key = $1', [key])).rows[0]?.n;
  const brief = (d: RateDecision) => `${d.allowed ? 'ok' : 'no'} ${d.remaining}/${d.limit} ${d.resetSeconds}s`;

  it('hits alternating between two nodes share one budget, and decide exactly as the in-memory limiter does', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const a = new PgRateLimiter(nodeA.pool, 'api', 3, clock);
    const b = new PgRateLimiter(nodeB.pool, 'api', 3, clock);
    const memory = new RateLimiter(3, clock);
    const seen: string[] = [];
    const expected: string[] = [];
    for (const node of [a, b, a, b, b]) {
      seen.push(brief(await node.hit('tok_1')));
      expected.push(brief(memory.hit('tok_1')));
      clock.advance(10_000);
    }
    expect(seen).toEqual(['ok 2/3 60s', 'ok 1/3 50s', 'ok 0/3 40s', 'no 0/3 30s', 'no 0/3 20s']);
    expect(seen).toEqual(expected);
    // Refused requests are not counted: the row stops at the limit.
    expect(await count('api:tok_1')).toBe(3);
    // Another key, and the same key in another scope, have budgets of their own.
    expect(brief(await b.hit('tok_2'))).toBe('ok 2/3 10s');
    expect(brief(await new PgRateLimiter(nodeB.pool, 'webhook', 3, clock).hit('tok_1'))).toBe('ok 2/3 10s');
    // The next window starts afresh on both nodes.
    clock.advance(10_000);
    expect(brief(await a.hit('tok_1'))).toBe('ok 2/3 60s');
    expect(brief(await b.hit('tok_1'))).toBe('ok 1/3 60s');
  });

  it('concurrent hits on two nodes never get more than the limit through', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 13, 0, 30));
    const limit = 25;
    const nodes = [new PgRateLimiter(nodeA.pool, 'webhook', limit, clock), new PgRateLimiter(nodeB.pool, 'webhook', limit, clock)];
    const decisions = await Promise.all(Array.from({ length: 120 }, (_, i) => nodes[i % 2]!.hit('ch_busy')));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(limit);
    // Each allowed request took its own place in the budget.
    expect(allowed.map((d) => d.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: limit }, (_, i) => i));
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetSeconds === 30)).toBe(true);
    // Each node counted its hits in batches (one statement for the hits of a turn): the last batch
    // that found room may have taken the count past the limit, by less than its size; none after it.
    const stored = await count('webhook:ch_busy');
    expect(stored).toBeGreaterThanOrEqual(limit);
    expect(stored).toBeLessThan(limit + 60);
  });

  it('counts the hits of one turn with one statement, deciding each as single hits in that order would', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 14, 0, 0));
    const limiter = new PgRateLimiter(nodeA.pool, 'burst', 5, clock);
    const statements: string[] = [];
    const query = nodeA.pool.query.bind(nodeA.pool);
    const spy = (text: unknown, values?: unknown) => {
      // A string, or a config object (the hit is a named statement, parsed once per connection).
      const sql = typeof text === 'string' ? text : String((text as { text?: unknown }).text);
      if (sql.includes('rate_limits')) statements.push(sql);
      return (query as (t: unknown, v?: unknown) => unknown)(text, values);
    };
    (nodeA.pool as { query: unknown }).query = spy;
    try {
      const burst = await Promise.all(Array.from({ length: 8 }, () => limiter.hit('k')));
      expect(burst.map(brief)).toEqual(['ok 4/5 60s', 'ok 3/5 60s', 'ok 2/5 60s', 'ok 1/5 60s', 'ok 0/5 60s', 'no 0/5 60s', 'no 0/5 60s', 'no 0/5 60s']);
      expect(statements.filter((t) => t.startsWith('INSERT'))).toHaveLength(1);
      expect(brief(await limiter.hit('k'))).toBe('no 0/5 60s');
    } finally {
      (nodeA.pool as { query: unknown }).query = query;
    }
  });

  it('a token look-up that counts: two nodes admitting at once let exactly the limit through, one statement per node per turn', async () => {
    const token = `ab_${'f'.repeat(48)}`;
    await nodeA.pool.query(`INSERT INTO workspaces (id, name, created_at) VALUES ('w_rl', 'RL', 1)`);
    await nodeA.pool.query(`INSERT INTO users (id, email, name, created_at, email_verified) VALUES ('u_rl', 'rl@a.test', 'RL', 1, true)`);
    await nodeA.pool.query(`INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ('w_rl', 'u_rl', 'owner', 1)`);
    await nodeA.pool.query(`INSERT INTO api_tokens (id, workspace_id, user_id, name, token_hash, hint, created_at, read_only) VALUES ('t_rl', 'w_rl', 'u_rl', 'rl', $1, 'ffff', 1, false)`, [hashToken(token)]);
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 15, 0, 45));
    const limit = 10;
    const lookUps = [nodeA, nodeB].map((node) => countingTokenLookUp(node.pool, new PgRateLimiter(node.pool, 'api', limit, clock)));
    const sent: string[] = [];
    const queries = [nodeA, nodeB].map((node) => node.pool.query.bind(node.pool));
    [nodeA, nodeB].forEach((node, i) => {
      (node.pool as { query: unknown }).query = (config: unknown, values?: unknown) => {
        sent.push(String((config as { text?: unknown }).text ?? config));
        return (queries[i] as (c: unknown, v?: unknown) => unknown)(config, values);
      };
    });
    try {
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => lookUps[i % 2]!(hashToken(token))));
      expect(answers.every((a) => a.row?.id === 't_rl' && a.row.member === 1 && a.row.readOnly === false)).toBe(true);
      const allowed = answers.filter((a) => a.rate.allowed);
      expect(allowed).toHaveLength(limit);
      expect(allowed.map((a) => a.rate.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: limit }, (_, i) => i));
      expect(answers.filter((a) => !a.rate.allowed).every((a) => a.rate.resetSeconds === 15)).toBe(true);
      // Each node sent its 15 look-ups of one turn as one statement that found the row and counted.
      expect(sent.filter((t) => t.includes('FROM api_tokens'))).toHaveLength(2);
      // The count lands on the key the plain limiter uses: a later plain hit finds the budget spent.
      expect(brief(await new PgRateLimiter(nodeA.pool, 'api', limit, clock).hit('t_rl'))).toBe('no 0/10 15s');
      // An unknown token is not counted and comes back without a row.
      const unknown = await lookUps[0]!(hashToken(`ab_${'0'.repeat(48)}`));
      expect(unknown.row).toBeUndefined();
    } finally {
      [nodeA, nodeB].forEach((node, i) => ((node.pool as { query: unknown }).query = queries[i]));
    }
  });

  it('windows that ended are pruned, per scope, by the next window\'s first hit', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 2, 0, 0, 0));
    const api = new PgRateLimiter(nodeA.pool, 'prune', 5, clock);
    const other = new PgRateLimiter(nodeA.pool, 'keep', 5, clock, 3_600_000);
    await api.hit('k1');
    await other.hit('k1');
    clock.advance(60_000);
    await api.hit('k2');
    const rows = async () => (await nodeA.pool.query<{ key: string }>("SELECT key FROM rate_limits WHERE key LIKE 'prune:%' OR key LIKE 'keep:%' ORDER BY key")).rows.map((r) => r.key);
    // The previous window stays (a node whose clock lags may still count in it).
    expect(await rows()).toEqual(['keep:k1', 'prune:k1', 'prune:k2']);
    clock.advance(60_000);
    await api.hit('k3');
    // Gone two windows later; the hour-long limiter's window is not this limiter's to prune.
    await eventually(async () => (await rows()).join() === 'keep:k1,prune:k2,prune:k3', 'the ended window to be pruned', { seen: () => 'rows' });
  });
});
