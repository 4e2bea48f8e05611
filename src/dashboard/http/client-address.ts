import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The client's address for rate limits and the audit log. X-Forwarded-For is
 * believed only with TRUST_PROXY (anyone can send the header); then its
 * right-most entry is the one our proxy added.
 */
export function clientAddress(c: Context, trustProxy: boolean): string | null {
  if (trustProxy) {
    const fwd = c.req.header('x-forwarded-for');
    const last = fwd?.split(',').map((s) => s.trim()).filter(Boolean).pop();
    if (last) return last;
  }
  // app.request() (tests, the in-process benches) has no socket: answered without a throw, which
  // costs a stack trace on every request.
  const env = c.env as { incoming?: unknown; server?: { incoming?: unknown } } | undefined;
  if (!env || (env.incoming === undefined && env.server?.incoming === undefined)) return null;
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}
