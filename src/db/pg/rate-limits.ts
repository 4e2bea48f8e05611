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

/**
 * Counts `n` hits of one batch in the window starting at `start`, in one statement, and returns the
 * stored count after them (undefined: already at the limit, nothing counted) with whatever else the
 * statement read (the token look-up counts with its row: src/db/pg/token-budget.ts).
 */
export type BatchCount<R> = (n: number, start: number, limit: number) => Promise<{ total: number | undefined; value: R }>;

/** One hit's answer: the decision, and what the batch's statement read besides. */
export interface Spent<R> {
  decision: RateDecision;
  value: R;
}

interface Waiting {
  start: number;
  count: BatchCount<unknown>;
  hits: { now: number; resolve(s: Spent<unknown>): void; reject(err: unknown): void }[];
}

/**
 * Fixed windows aligned to multiples of `windowMs` since the epoch, so every node agrees on which
 * window a request falls in (to within the nodes' clock skew, at a boundary). `scope` keeps
 * limiters apart in the one table ("api", "webhook"): their keys are stored as `<scope>:<key>`.
 */
export class PgRateLimiter implements Limiter {
  private prunedWindow = -Infinity;
  /** Hits not yet sent, by batch and window. */
  private readonly waiting = new Map<string, Waiting>();
  /** Batches (and windows) whose statement is in flight: their next hits wait for it. */
  private readonly busy = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly scope: string,
    private readonly limit: number,
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
  ) {
    if (scope === '' || scope.includes(':')) throw new Error(`rate limiter scope "${scope}" must be non-empty, without ":"`);
  }

  hit(key: string): Promise<RateDecision> {
    if (this.limit <= 0) {
      const now = this.clock.now();
      return Promise.resolve(this.denied(now - (now % this.windowMs), now));
    }
    const stored = `${this.scope}:${key}`;
    return this.spend(stored, async (n, start, limit) => {
      const { rows } = await this.pool.query<{ count: number }>(HIT([stored, start, n, limit]));
      return { total: rows[0]?.count, value: undefined };
    }).then((s) => s.decision);
  }

  /**
   * One hit, batched with the other hits of `batch` that arrive together (one event-loop turn, or
   * while the batch's previous statement is in flight) and counted by `count` for all of them.
   * A statement that also reads something (the token look-up) spends the budget in the same round trip.
   */
  spend<R>(batch: string, count: BatchCount<R>): Promise<Spent<R>> {
    const now = this.clock.now();
    const start = now - (now % this.windowMs);
    this.prune(start);
    const id = `${start}|${batch}`;
    return new Promise<Spent<R>>((resolve, reject) => {
      let w = this.waiting.get(id);
      if (!w) this.waiting.set(id, (w = { start, count, hits: [] }));
      w.hits.push({ now, resolve: resolve as (s: Spent<unknown>) => void, reject });
      if (!this.busy.has(id) && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Sends one statement for every waiting batch whose previous statement has come back. */
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
    let counted: { total: number | undefined; value: unknown };
    try {
      counted = await w.count(n, w.start, this.limit);
    } catch (err) {
      for (const h of w.hits) h.reject(err);
      return;
    }
    const before = counted.total === undefined ? this.limit : counted.total - n;
    w.hits.forEach((h, i) => {
      const used = before + i;
      const decision = used < this.limit ? { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetSeconds: this.reset(w.start, h.now) } : this.denied(w.start, h.now);
      h.resolve({ decision, value: counted.value });
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
