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
export function enforceRateLimit(c: Context, limiter: { hit(key: string): RateDecision }, key: string, detail: (decision: RateDecision) => string): void;
export function enforceRateLimit(c: Context, limiter: Limiter, key: string, detail: (decision: RateDecision) => string): void | Promise<void>;
export function enforceRateLimit(c: Context, limiter: Limiter, key: string, detail: (decision: RateDecision) => string): void | Promise<void> {
  const decision = limiter.hit(key);
  if (decision instanceof Promise) return decision.then((decided) => enforce(c, decided, detail));
  enforce(c, decision, detail);
}

function enforce(c: Context, decision: RateDecision, detail: (decision: RateDecision) => string): void {
  if (!decision.allowed) refuse(c, decision, detail);
  setRateHeaders(c, decision);
}

/** Over the limit: the RateLimit-* headers on the context, and the `rate-limited` problem (its Retry-After from `retryAfter`) thrown. */
export function refuse(c: Context, decision: RateDecision, detail: (decision: RateDecision) => string): never {
  setRateHeaders(c, decision);
  throw new AppError('rate-limited', detail(decision), { retryAfter: decision.resetSeconds });
}

/** The RateLimit-* headers of one decision (a use case that counts by itself reports its decision here). */
export function setRateHeaders(c: Context, decision: RateDecision): void {
  for (const [name, value] of Object.entries(rateHeaders(decision))) c.header(name, value);
}

/** The same headers as a plain object, for a response built with plainJson (src/http/plain-response.ts). */
export function rateHeaders(decision: RateDecision): Record<string, string> {
  return {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
    'ratelimit-policy': `${decision.limit};w=60`,
  };
}
