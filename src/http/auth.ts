import type { MiddlewareHandler } from 'hono';
import type { Limiter } from '../lib/rate-limiter.js';
import { enforceRateLimit } from './rate-limit.js';
import type { AppEnv } from './env.js';

/**
 * Bearer authentication followed by the per-token rate limit. Failures throw,
 * and the app's one error handler renders them (401 body or 429 problem).
 */
export function requireToken(limiter: Limiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = await c.get('services').auth.authenticate(c.req.header('authorization'));
    await enforceRateLimit(c, limiter, principal.tokenId, (d) => `limit of ${d.limit} requests per minute reached; retry in ${d.resetSeconds} s`);
    c.set('principal', principal);
    await next();
  };
}
