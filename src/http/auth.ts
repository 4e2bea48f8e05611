import type { MiddlewareHandler } from 'hono';
import { AppError } from '../domain/errors.js';
import type { RateLimiter } from './rate-limit.js';
import type { AppEnv } from './env.js';

/**
 * Bearer authentication followed by the per-token rate limit. Failures throw,
 * and the app's one error handler renders them (401 body or 429 problem).
 */
export function requireToken(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = c.var.services.auth.authenticate(c.req.header('authorization'));
    const d = limiter.hit(principal.tokenId);
    c.header('RateLimit-Limit', String(d.limit));
    c.header('RateLimit-Remaining', String(d.remaining));
    c.header('RateLimit-Reset', String(d.resetSeconds));
    c.header('RateLimit-Policy', `${d.limit};w=60`);
    if (!d.allowed) {
      c.header('Retry-After', String(d.resetSeconds));
      throw new AppError('rate-limited', `limit of ${d.limit} requests per minute reached; retry in ${d.resetSeconds} s`, {
        retryAfter: d.resetSeconds,
      });
    }
    c.set('principal', principal);
    await next();
  };
}
