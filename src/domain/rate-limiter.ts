import type { Clock } from '../lib/clock.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Counts one request against a key (a token id, a webhook's channel id) in fixed one-minute
 * windows. Two implementations: `RateLimiter` below, in memory, for a single node; and
 * src/db/pg/rate-limits.ts, one shared count per key in PostgreSQL, so a cluster's nodes spend one
 * budget. The in-memory one answers synchronously; callers await either. Both live beside the use
 * cases that spend the budgets (the in-memory one needs nothing but a clock).
 */
export interface Limiter {
  hit(key: string): RateDecision | Promise<RateDecision>;
}

/**
 * Fixed one-minute windows per key, in memory: for one process, where a restart forgiving a minute
 * of counts is harmless.
 */
export class RateLimiter implements Limiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    private readonly limit: number,
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
  ) {}

  hit(key: string): RateDecision {
    const now = this.clock.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    const resetSeconds = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    if (w.count >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    w.count++;
    return { allowed: true, limit: this.limit, remaining: this.limit - w.count, resetSeconds };
  }

  private sweep(now: number) {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
  }
}
