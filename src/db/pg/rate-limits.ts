import type pg from 'pg';
import type { Clock } from '../../lib/clock.js';
import type { Limiter, RateDecision } from '../../lib/rate-limiter.js';

/**
 * One count per (key, window) in the UNLOGGED table `rate_limits` (drizzle-pg/0004_cluster_coordination.sql),
 * bumped by one statement per request: every node of a cluster spends the same budget, exactly.
 * The conditional upsert counts only allowed requests; at the limit it changes nothing and returns
 * no row, so concurrent requests on any number of nodes never get more than `limit` through.
 */
const HIT = `INSERT INTO rate_limits AS r (key, window_start, count) VALUES ($1, $2, 1)
  ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + 1 WHERE r.count < $3
  RETURNING count`;

/** Windows of this limiter's scope that ended before the previous one (a node whose clock lags a little may still count in that). */
const PRUNE = 'DELETE FROM rate_limits WHERE key >= $1 AND key < $2 AND window_start < $3';

/**
 * Fixed windows aligned to multiples of `windowMs` since the epoch, so every node agrees on which
 * window a request falls in (to within the nodes' clock skew, at a boundary). `scope` keeps
 * limiters apart in the one table ("api", "webhook"): their keys are stored as `<scope>:<key>`.
 */
export class PgRateLimiter implements Limiter {
  private prunedWindow = -Infinity;

  constructor(
    private readonly pool: pg.Pool,
    private readonly scope: string,
    private readonly limit: number,
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
  ) {
    if (scope === '' || scope.includes(':')) throw new Error(`rate limiter scope "${scope}" must be non-empty, without ":"`);
  }

  async hit(key: string): Promise<RateDecision> {
    const now = this.clock.now();
    const start = now - (now % this.windowMs);
    const resetSeconds = Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
    const denied = { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    this.prune(start);
    if (this.limit <= 0) return denied;
    const { rows } = await this.pool.query<{ count: number }>(HIT, [`${this.scope}:${key}`, start, this.limit]);
    const count = rows[0]?.count;
    if (count === undefined) return denied;
    return { allowed: true, limit: this.limit, remaining: this.limit - count, resetSeconds };
  }

  /** At most once a window per node, in the background: a failed prune is retried next window, and never fails a request. */
  private prune(start: number): void {
    if (start === this.prunedWindow) return;
    this.prunedWindow = start;
    // ';' is the character after ':': the range is exactly the keys of this scope (byte-order "C" collation).
    this.pool.query(PRUNE, [`${this.scope}:`, `${this.scope};`, start - this.windowMs]).catch(() => {});
  }
}
