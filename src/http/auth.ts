import type { MiddlewareHandler } from 'hono';
import { hasRequestId } from './plain-response.js';
import { rateHeaders, refuse } from './rate-limit.js';
import type { AppEnv } from './env.js';

/**
 * Bearer authentication and the per-token rate limit (src/domain/tokens.ts: admit). Failures throw,
 * and the app's one error handler renders them (401 body or 429 problem).
 *
 * An allowed request's decision is kept on the context (`rate`): a route that
 * answers with plainJson (the alert page, the read API's hot path) puts its
 * RateLimit-* headers into that response's plain header object; any other
 * answer, an error included, gets them here after the handler. Setting them
 * through `c.header()` beforehand would make every answer build and merge a
 * web `Headers` (src/http/plain-response.ts).
 */
export function requireToken(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { principal, rate: d } = await c.get('services').auth.admit(c.req.header('authorization'));
    if (!d.allowed) refuse(c, d, (x) => `limit of ${x.limit} requests per minute reached; retry in ${x.resetSeconds} s`);
    c.set('principal', principal);
    c.set('rate', d);
    await next();
    const res = c.res;
    if (hasRequestId(res)) return;
    const headers = res.headers;
    for (const [name, value] of Object.entries(rateHeaders(d))) headers.set(name, value);
  };
}
