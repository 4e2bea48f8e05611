import { OpenAPIHono, z } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import type { DashboardServices } from '../dashboard/dashboard-services.js';
import { createDashboard, type DashboardOptions } from '../dashboard/index.js';
import { AppError, AuthError } from '../domain/errors.js';
import { maskPath } from '../lib/logger.js';
import { storageFailureOf, storageUnavailable } from '../ops/storage-health.js';
import { requireToken } from './auth.js';
import type { HttpDeps } from './deps.js';
import type { AppEnv } from './env.js';
import { requestContext, requestLogger } from './middleware/request-context.js';
import { readApiMetrics, webhookMetrics } from './middleware/request-metrics.js';
import { authFailureResponse, httpExceptionResponse, problemResponse } from './problems.js';
import { registerDocs } from './routes/docs.js';
import { registerRouteWebhookEvent } from './routes/route-webhook-event.js';
import { registerHeartbeatsApi } from './routes/heartbeats-api.js';
import { registerMcp } from './routes/mcp.js';
import { registerPing } from './routes/ping.js';
import { createMediaRoutes } from './routes/media.js';
import { registerOperations } from './routes/operations.js';
import { registerReadApi } from './routes/read-api.js';
import { registerThreadsApi } from './routes/threads-api.js';
import { registerSearch } from './routes/search.js';
import { registerStream } from './routes/stream.js';
import { registerWebhook } from './routes/webhook.js';
import { registerWebhookFormats } from './routes/webhook-formats.js';
import { registerWebhookGithub } from './routes/webhook-github.js';
import { registerWebhookGroups } from './routes/webhook-groups.js';
import { Problem } from './schemas.js';
import { MAX_JSON_BODY_BYTES, WebhookBodyReader } from './webhook-body.js';
import { validationError } from './validation.js';

export interface AppOptions {
  /** Extra route registrations (the stream, the media host) wired by main/tests. */
  extend?: (app: OpenAPIHono<AppEnv>) => void;
  dashboard?: DashboardOptions;
}

/**
 * Builds the whole HTTP surface from injected services (the API's and the dashboard's
 * narrow dependencies; the composition root passes its services). No I/O happens here:
 * main.ts serves it, tests call `app.request()` or serve it on loopback.
 */
export function createApp(services: HttpDeps & DashboardServices, opts: AppOptions = {}) {
  const { config } = services;
  const app = new OpenAPIHono<AppEnv>({
    // Every zod failure goes through this one hook, so a 400 looks like every other error.
    defaultHook: (result, _c) => {
      if (result.success) return;
      const target = (result as { target?: string }).target;
      const code = target === 'query' || target === 'param' ? 'invalid-query' : 'invalid-body';
      throw validationError(code, result.error.issues);
    },
  });

  app.use('*', requestContext(services));
  if (services.ops.metrics) {
    app.use('/api/webhook/*', webhookMetrics(services.ops.metrics));
    for (const path of ['/api/channels/*', '/api/alerts/*']) app.use(path, readApiMetrics(services.ops.metrics));
  }

  app.onError((err, c) => {
    const path = maskPath(new URL(c.req.url).pathname);
    if (isClientAbort(err, c.req.raw)) {
      // The client went away mid-request: nothing to fix on our side and nobody
      // to answer. The 499 (nginx's "client closed request") only reaches the access log.
      requestLogger(c).info({ path, method: c.req.method }, 'request aborted by the client');
      return new Response(null, { status: 499 });
    }
    if (err instanceof AuthError) return authFailureResponse(config.publicUrl, err);
    if (err instanceof AppError) return problemResponse(c, config.publicUrl, err);
    // Disk full or an I/O error: nothing was stored; a 503 to retry, and /healthz turns degraded.
    const storage = storageFailureOf(err);
    if (storage) {
      services.ops.storage.failed(storage);
      return problemResponse(c, config.publicUrl, storageUnavailable(storage.reason));
    }
    // Hono's own errors: the JSON body reader, the OpenAPI routes' media-type gate.
    if (err instanceof HTTPException) {
      if (err.status >= 500) requestLogger(c).error({ err, path }, 'unhandled error');
      return httpExceptionResponse(c, config.publicUrl, err);
    }
    requestLogger(c).error({ err, path }, 'unhandled error');
    return problemResponse(c, config.publicUrl, new AppError('internal'));
  });

  const dashboard = createDashboard(services, opts.dashboard);
  app.use('*', dashboard.headers);
  app.notFound((c) => dashboard.notFound(c) ?? problemResponse(c, config.publicUrl, new AppError('not-found', 'no such endpoint')));

  registerOperations(app);

  const auth = requireToken();
  // In Hono `/x/*` also matches `/x` itself: one pattern per resource, or auth would run twice.
  for (const path of ['/api/channels/*', '/api/alerts/*', '/api/stream', '/api/search', '/api/heartbeats']) app.use(path, auth);

  const webhookBody = new WebhookBodyReader(services.webhookFiles, { maxJsonBytes: MAX_JSON_BODY_BYTES });
  registerWebhook(app, webhookBody);
  registerWebhookFormats(app, webhookBody);
  registerWebhookGithub(app, webhookBody);
  registerWebhookGroups(app, webhookBody);
  registerReadApi(app);
  registerThreadsApi(app);
  registerSearch(app);
  registerStream(app);
  registerHeartbeatsApi(app);
  registerMcp(app, auth);
  registerPing(app);
  app.route('/media', createMediaRoutes(services.media, config.publicUrl));
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/media/{key}',
    summary: 'An attachment re-hosted by the service (supports Range, ETag, HEAD)',
    request: { params: z.object({ key: z.string().openapi({ param: { name: 'key', in: 'path' }, description: '<sha256>.<ext>' }) }) },
    responses: {
      200: { description: 'The file' },
      206: { description: 'Partial content (Range)' },
      304: { description: 'Not modified (If-None-Match)' },
      404: { description: 'Unknown media key', content: { 'application/problem+json': { schema: Problem } } },
      416: { description: 'Range not satisfiable' },
    },
  });
  app.route('/', dashboard.routes as unknown as OpenAPIHono<AppEnv>);
  opts.extend?.(app);
  registerRouteWebhookEvent(app);
  registerDocs(app, config.publicUrl);
  return app;
}

export type App = ReturnType<typeof createApp>;

/**
 * True when the request failed because its client disconnected: Node's HTTP
 * server fails the body stream with ECONNRESET "aborted", and
 * @hono/node-server aborts the request's signal once the socket closes.
 */
function isClientAbort(err: unknown, req: Request): boolean {
  if (req.signal.aborted) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  return typeof e === 'object' && e !== null && ((e.code === 'ECONNRESET' && e.message === 'aborted') || e.code === 'ERR_STREAM_PREMATURE_CLOSE');
}
