import type { Context } from 'hono';
import { AppError } from '../domain/errors.js';
import type { Limiter, RateDecision } from '../domain/rate-limiter.js';

/**
 * Counts one request against `key` and sets the RateLimit-* headers (IETF
 * draft), on success and on the 429 alike. Over the limit it throws the
 * `rate-limited` problem; its Retry-After header comes from `retryAfter`.
 * A limiter that answers synchronously (in memory) is enforced synchronously;
 * a shared one (PostgreSQL) returns the promise to await.
 */
export function enforceRateLimit(c: Context, limiter: { hit(key: string): RateDecision }, key: string, detail: (d: RateDecision) => string): void;
export function enforceRateLimit(c: Context, limiter: Limiter, key: string, detail: (d: RateDecision) => string): void | Promise<void>;
export function enforceRateLimit(c: Context, limiter: Limiter, key: string, detail: (d: RateDecision) => string): void | Promise<void> {
  const d = limiter.hit(key);
  if (d instanceof Promise) return d.then((decided) => enforce(c, decided, detail));
  enforce(c, d, detail);
}

function enforce(c: Context, d: RateDecision, detail: (d: RateDecision) => string): void {
  if (!d.allowed) refuse(c, d, detail);
  setRateHeaders(c, d);
}

/** Over the limit: the RateLimit-* headers on the context, and the `rate-limited` problem (its Retry-After from `retryAfter`) thrown. */
export function refuse(c: Context, d: RateDecision, detail: (d: RateDecision) => string): never {
  setRateHeaders(c, d);
  throw new AppError('rate-limited', detail(d), { retryAfter: d.resetSeconds });
}

/** The RateLimit-* headers of one decision (a use case that counts by itself reports its decision here). */
export function setRateHeaders(c: Context, d: RateDecision): void {
  for (const [name, value] of Object.entries(rateHeaders(d))) c.header(name, value);
}

/** The same headers as a plain object, for a response built with plainJson (src/http/plain-response.ts). */
export function rateHeaders(d: RateDecision): Record<string, string> {
  return {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.resetSeconds),
    'ratelimit-policy': `${d.limit};w=60`,
  };
}
