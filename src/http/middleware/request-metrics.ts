import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Metrics } from '../../ops/metrics.js';
import type { AppEnv } from '../env.js';

/** Times the rest of the chain and hands the seconds to `record`, also when the chain threw. */
function timed(record: (c: Context<AppEnv>, seconds: number) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      record(c, (performance.now() - started) / 1000);
    }
  };
}

/**
 * Webhook outcomes and latency. Registered only when METRICS=1, so the hot
 * path pays nothing otherwise; when on, one counter increment and one
 * histogram observation per request. The refusal reason is the problem type
 * (a fixed set), never anything from the request.
 */
export function webhookMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return timed((c, seconds) => {
    const status = c.res.status;
    if (status < 400) metrics.webhook('accepted', c.res.headers.has('idempotency-replayed') ? 'replayed' : 'stored', seconds);
    else metrics.webhook('refused', c.get('problemCode') ?? `http-${status}`, seconds);
  });
}

/** Read-API latency by route pattern (`/api/channels/:channel/alerts`), never by raw path. */
export function readApiMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return timed((c, seconds) => {
    // After next(), routeIndex points at the handler that answered (a middleware, when auth refused).
    const route = routePath(c) || 'unmatched';
    metrics.readApi(c.req.method, route === '*' || route.endsWith('/*') ? 'unmatched' : route, c.res.status, seconds);
  });
}
