import { timingSafeEqual } from 'node:crypto';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';

const Health = z
  .object({
    status: z.enum(['ok', 'degraded']),
    reasons: z.array(z.string()).optional().openapi({ description: 'Why it is degraded, e.g. `storage: database or disk is full`' }),
  })
  .openapi('Health');

const Check = z.object({ status: z.enum(['ok', 'warn', 'fail']) }).catchall(z.unknown());
const ReadinessBody = z
  .object({
    status: z.enum(['ready', 'not-ready']),
    checks: z.record(z.string(), Check).openapi({ description: 'database, disk, storage, outbox, discord (when configured), shutdown (while draining)' }),
  })
  .openapi('Readiness');

/**
 * /healthz (liveness), /readyz (readiness) and /metrics (Prometheus, only
 * with METRICS=1). The logic lives in src/ops/; this is only the HTTP side.
 */
export function registerOperations(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: 200 while the process serves; `degraded` (still 200) while writes fail for storage reasons',
    responses: { 200: { description: 'Serving', content: { 'application/json': { schema: Health } } } },
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: database, free disk, storage, outbox backlog, Discord gateway; 503 when the service should not get traffic',
    responses: {
      200: { description: 'Ready (checks may still warn)', content: { 'application/json': { schema: ReadinessBody } } },
      503: { description: 'Not ready: at least one check failed', content: { 'application/json': { schema: ReadinessBody } } },
    },
  });

  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (text exposition format); only with METRICS=1',
    description: 'With `METRICS_TOKEN` set, send `Authorization: Bearer <METRICS_TOKEN>`. Without `METRICS=1` the path does not exist (404).',
    responses: {
      200: { description: 'Metrics', content: { 'text/plain': { schema: z.string() } } },
      401: { description: 'METRICS_TOKEN is set and the request does not carry it' },
      404: { description: 'Metrics are off (METRICS unset)' },
    },
  });

  app.get('/healthz', (c) => c.json(c.var.services.ops.health()));

  app.get('/readyz', async (c) => {
    const r = await c.var.services.ops.readiness();
    c.header('Cache-Control', 'no-store');
    return c.json(r, r.status === 'ready' ? 200 : 503);
  });

  app.get('/metrics', async (c) => {
    const { config, ops } = c.var.services;
    // Off unless METRICS=1: the same 404 as any unknown path.
    if (!ops.metrics) return c.notFound();
    if (config.metricsToken && !bearerMatches(c.req.header('authorization'), config.metricsToken)) {
      return c.json({ error: 'Unauthorized', message: 'send Authorization: Bearer <METRICS_TOKEN>' }, 401, {
        'WWW-Authenticate': 'Bearer realm="alertbridge-metrics"',
      });
    }
    const text = await ops.metrics.render();
    return c.body(text, 200, { 'Content-Type': ops.metrics.contentType, 'Cache-Control': 'no-store' });
  });
}

/** Constant-time comparison: the token must not leak through response timing. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer ([^\s]+)$/.exec(header ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
