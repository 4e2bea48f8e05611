import type { Context } from 'hono';
import { AppError } from '../domain/errors.js';
import type { Limiter, RateDecision } from '../lib/rate-limiter.js';

/**
 * Counts one request against `key` and sets the RateLimit-* headers (IETF
 * draft), on success and on the 429 alike. Over the limit it throws the
 * `rate-limited` problem; its Retry-After header comes from `retryAfter`.
 */
export async function enforceRateLimit(c: Context, limiter: Limiter, key: string, detail: (d: RateDecision) => string): Promise<void> {
  const d = await limiter.hit(key);
  setRateHeaders(c, d);
  if (!d.allowed) throw new AppError('rate-limited', detail(d), { retryAfter: d.resetSeconds });
}

/** The RateLimit-* headers of one decision (a use case that counts by itself reports its decision here). */
export function setRateHeaders(c: Context, d: RateDecision): void {
  c.header('RateLimit-Limit', String(d.limit));
  c.header('RateLimit-Remaining', String(d.remaining));
  c.header('RateLimit-Reset', String(d.resetSeconds));
  c.header('RateLimit-Policy', `${d.limit};w=60`);
}
