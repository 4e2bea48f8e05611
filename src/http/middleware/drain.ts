import type { MiddlewareHandler } from 'hono';
import type { Operations } from '../../ops/operations.js';
import type { AppEnv } from '../env.js';

/**
 * Graceful shutdown, HTTP side. Counts requests in flight (main.ts waits for
 * zero before flushing the group commit and closing the database), and once
 * draining, answers with `Connection: close`: Node then closes a keep-alive
 * socket after that response instead of serving the client's next request on
 * it. Checked after the handler, so a request that was running at the signal
 * gets the header too.
 */
export function drain(ops: Operations): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    ops.inFlight++;
    try {
      await next();
    } finally {
      ops.inFlight--;
    }
    if (ops.draining) c.res.headers.set('Connection', 'close');
  };
}
