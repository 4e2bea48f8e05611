import type pg from 'pg';
import type { Clock } from '../../lib/clock.js';
import type { Limiter, RateDecision } from '../../domain/rate-limiter.js';
import { prepared } from './prepared.js';

/**
 * One count per (key, window) in the UNLOGGED table `rate_limits` (drizzle-pg/0004_cluster_coordination.sql):
 * every node of a cluster spends the same budget, exactly. A node adds up the hits of one key that
 * arrive together (one event-loop turn, or while that key's previous statement is in flight) and
 * counts them with one statement, so a burst on one webhook costs a round trip per batch, not per
 * request, and the requests do not queue for pool connections one by one behind the row lock.
 *
 * The statement adds the batch's n hits only while the stored count is under the limit, and returns
 * the new count c; the stored count before was c - n, so the batch's i-th hit (0-based) is allowed
 * exactly when c - n + i < limit: the answers are the ones n single hits in that order would have
 * had. The count may end above the limit (by fewer than n); at or above it nothing changes and no row
 * comes back, so concurrent batches on any number of nodes never let more than `limit` through.
 */
const HIT = prepared('rate_limit_hit', `INSERT INTO rate_limits AS r (key, window_start, count) VALUES ($1, $2, $3)
  ON CONFLICT (key, window_start) DO UPDATE SET count = r.count + excluded.count WHERE r.count < $4
  RETURNING count`);

/** Windows of this limiter's scope that ended before the previous one (a node whose clock lags a little may still count in that). */
const PRUNE = 'DELETE FROM rate_limits WHERE key >= $1 AND key < $2 AND window_start < $3';

interface Waiting {
  key: string;
  start: number;
  hits: { now: number; resolve(d: RateDecision): void; reject(err: unknown): void }[];
}

/**
 * Fixed windows aligned to multiples of `windowMs` since the epoch, so every node agrees on which
 * window a request falls in (to within the nodes' clock skew, at a boundary). `scope` keeps
 * limiters apart in the one table ("api", "webhook"): their keys are stored as `<scope>:<key>`.
 */
export class PgRateLimiter implements Limiter {
  private prunedWindow = -Infinity;
  /** Hits not yet sent, by stored key and window. */
  private readonly waiting = new Map<string, Waiting>();
  /** Stored keys (and windows) whose statement is in flight: their next hits wait for it. */
  private readonly busy = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly scope: string,
    private readonly limit: number,
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
  ) {
    if (scope === '' || scope.includes(':')) throw new Error(`rate limiter scope "${scope}" must be non-empty, without ":"`);
  }

  hit(key: string): Promise<RateDecision> {
    const now = this.clock.now();
    const start = now - (now % this.windowMs);
    this.prune(start);
    if (this.limit <= 0) return Promise.resolve(this.denied(start, now));
    const stored = `${this.scope}:${key}`;
    const id = `${start}|${stored}`;
    return new Promise<RateDecision>((resolve, reject) => {
      let w = this.waiting.get(id);
      if (!w) this.waiting.set(id, (w = { key: stored, start, hits: [] }));
      w.hits.push({ now, resolve, reject });
      if (!this.busy.has(id) && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Sends one statement for every waiting key whose previous statement has come back. */
  private flush(): void {
    for (const [id, w] of this.waiting) {
      if (this.busy.has(id)) continue;
      this.waiting.delete(id);
      this.busy.add(id);
      void this.count(w).finally(() => {
        this.busy.delete(id);
        if (this.waiting.has(id)) this.flush();
      });
    }
  }

  private async count(w: Waiting): Promise<void> {
    const n = w.hits.length;
    let total: number | undefined;
    try {
      const { rows } = await this.pool.query<{ count: number }>(HIT([w.key, w.start, n, this.limit]));
      total = rows[0]?.count;
    } catch (err) {
      for (const h of w.hits) h.reject(err);
      return;
    }
    const before = total === undefined ? this.limit : total - n;
    w.hits.forEach((h, i) => {
      const used = before + i;
      h.resolve(used < this.limit ? { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetSeconds: this.reset(w.start, h.now) } : this.denied(w.start, h.now));
    });
  }

  private reset(start: number, now: number): number {
    return Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
  }

  private denied(start: number, now: number): RateDecision {
    return { allowed: false, limit: this.limit, remaining: 0, resetSeconds: this.reset(start, now) };
  }

  /** At most once a window per node, in the background: a failed prune is retried next window, and never fails a request. */
  private prune(start: number): void {
    if (start === this.prunedWindow) return;
    this.prunedWindow = start;
    // ';' is the character after ':': the range is exactly the keys of this scope (byte-order "C" collation).
    this.pool.query(PRUNE, [`${this.scope}:`, `${this.scope};`, start - this.windowMs]).catch(() => {});
  }
}
