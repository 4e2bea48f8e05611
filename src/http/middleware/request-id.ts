import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from '../../lib/logger.js';
import type { AppEnv } from '../env.js';

/**
 * A client-sent id is kept only when it is short and plain: it is echoed in a
 * header, in problem bodies and in log lines, so anything that could split a
 * header, forge a log field or bloat every line is replaced.
 */
const SANE_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * Gives every request an `X-Request-Id` (the client's, when sane, else a new
 * UUID) on the context and on the response, whatever produced the response
 * (a route, the error mapper, the 401 builder, a file stream).
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const sent = c.req.header('x-request-id');
    const id = sent !== undefined && SANE_ID.test(sent) ? sent : randomUUID();
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
    // Responses built outside the context (the read API's 401) do not carry context headers.
    if (!c.res.headers.has('x-request-id')) c.res.headers.set('X-Request-Id', id);
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
