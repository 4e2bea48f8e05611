import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { maskPath, type Logger } from '../../lib/logger.js';
import type { HttpDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { hasRequestId } from '../plain-response.js';

/**
 * A client-sent id is kept only when it is short and plain: it is echoed in a
 * header, in problem bodies and in log lines, so anything that could split a
 * header, forge a log field or bloat every line is replaced.
 */
const SANE_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * The first middleware of every request, one layer on purpose (each async
 * middleware costs a few µs on the webhook hot path, see the README's
 * Operations notes):
 * - injects the services;
 * - gives the request an `X-Request-Id` (the client's when sane, else a UUID)
 *   on the context and on the response, whatever produced the response;
 * - graceful shutdown: counts requests in flight (main.ts waits for zero
 *   before flushing the group commit), and once draining answers with
 *   `Connection: close`, so Node closes a keep-alive socket after that answer
 *   instead of serving the client's next request on it. Checked after the
 *   handler, so a request that was running at the signal gets it too;
 * - the debug access log line (path with the webhook token masked).
 */
export function requestContext(services: HttpDeps): MiddlewareHandler<AppEnv> {
  const { ops, logger } = services;
  return async (c, next) => {
    c.set('services', services);
    const sent = c.req.header('x-request-id');
    const id = sent !== undefined && SANE_ID.test(sent) ? sent : randomUUID();
    c.set('requestId', id);
    const started = performance.now();
    ops.inFlight++;
    try {
      await next();
    } finally {
      ops.inFlight--;
    }
    // Set after the handler, on whatever answered (the context's responses, the read API's 401, an error page);
    // a response built with plainJson carries it already, and touching its headers would build a web Headers.
    const res = c.res;
    if (!hasRequestId(res)) {
      const headers = res.headers;
      if (!headers.has('x-request-id')) headers.set('X-Request-Id', id);
    }
    if (ops.draining) res.headers.set('Connection', 'close');
    if (logger.isLevelEnabled('debug')) {
      requestLogger(c).debug(
        { method: c.req.method, path: maskPath(new URL(c.req.url).pathname), status: c.res.status, ms: +(performance.now() - started).toFixed(2) },
        'request',
      );
    }
  };
}

/**
 * The request's logger: a pino child carrying `requestId`, made on first use
 * and kept on the context, so requests that log nothing do not pay for it.
 */
export function requestLogger(c: Context<AppEnv>): Logger {
  let log = c.get('log');
  if (!log) {
    const base = c.var.services.logger;
    const id = c.get('requestId');
    log = id ? base.child({ requestId: id }) : base;
    c.set('log', log);
  }
  return log;
}
