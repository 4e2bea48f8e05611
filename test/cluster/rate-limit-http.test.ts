import { Hono } from 'hono';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { PgRateLimiter } from '../../src/db/pg/rate-limits.js';
import { AppError } from '../../src/domain/errors.js';
import { problemResponse } from '../../src/http/problems.js';
import { enforceRateLimit } from '../../src/http/rate-limit.js';
import { ManualClock } from '../../src/lib/clock.js';
import { RateLimiter, type Limiter } from '../../src/domain/rate-limiter.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/**
 * What a client sees of a rate limit does not depend on the engine: the same RateLimit-* headers,
 * the same 429 problem and Retry-After, whether one node counts in memory or two nodes count in
 * PostgreSQL (requests alternating between them).
 */
describePg('the rate limit over HTTP, in memory and shared by two nodes', () => {
  let fresh: FreshDatabase;
  let nodes: PgDb[];
  beforeAll(async () => {
    fresh = await freshDatabase({ migrated: true });
    nodes = [await openPg(fresh.url), await openPg(fresh.url, { migrate: false })];
  });
  afterAll(async () => {
    for (const n of nodes) await n.close();
    await fresh.drop();
  });

  const app = (limiter: Limiter) => {
    const a = new Hono();
    a.get('/api/x', async (c) => {
      await enforceRateLimit(c, limiter, 'tok_1', (d) => `limit of ${d.limit} requests per minute reached; retry in ${d.resetSeconds} s`);
      return c.json({ ok: true });
    });
    a.onError((err, c) => (err instanceof AppError ? problemResponse(c, 'https://alerts.test', err) : c.text('unexpected', 500)));
    return a;
  };

  async function answers(apps: Hono[], clock: ManualClock) {
    const out: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await apps[i % apps.length]!.request('/api/x');
      const headers = Object.fromEntries([...res.headers].filter(([k]) => k.startsWith('ratelimit-') || k === 'retry-after' || k === 'content-type'));
      out.push({ status: res.status, headers, body: await res.json() });
      clock.advance(5_000);
    }
    return out;
  }

  it('answers the same, request for request', async () => {
    const start = Date.UTC(2026, 0, 1, 9, 0, 0);
    const memoryClock = new ManualClock(start);
    const pgClock = new ManualClock(start);
    const memory = await answers([app(new RateLimiter(2, memoryClock))], memoryClock);
    const shared = await answers(nodes.map((n) => app(new PgRateLimiter(n.pool, 'api', 2, pgClock))), pgClock);
    expect(shared).toEqual(memory);
    expect(memory.map((a) => (a as { status: number }).status)).toEqual([200, 200, 429, 429]);
    expect(memory[2]).toMatchObject({
      headers: { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '50', 'retry-after': '50', 'content-type': 'application/problem+json' },
      body: { status: 429, detail: 'limit of 2 requests per minute reached; retry in 50 s' },
    });
  });
});
