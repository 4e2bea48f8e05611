import fs from 'node:fs';
import { Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import { readBodyCapped } from '../../http/body.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlash } from '../http/flash.js';
import { requireSession } from '../http/session.js';

/** A PushSubscription's JSON is about 400 bytes. */
export const MAX_PUSH_BODY_BYTES = 4 * 1024;

/** The service worker: at the root, so its scope is the whole dashboard. Read once. */
const SERVICE_WORKER = fs.readFileSync(new URL('../assets/push-sw.js', import.meta.url));

async function jsonBody(c: { req: { raw: Request; header(name: string): string | undefined } }): Promise<unknown> {
  if (!(c.req.header('content-type') ?? '').startsWith('application/json')) throw new AppError('unsupported-content-type', 'Send the subscription as application/json');
  const bytes = await readBodyCapped(c.req.raw, MAX_PUSH_BODY_BYTES, 'the subscription');
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new AppError('malformed-json', 'The body is not JSON');
  }
}

/**
 * Web Push on the dashboard: the service worker script, and the viewer's own
 * subscriptions (session and CSRF token required, as every dashboard POST).
 */
export function pushRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const subs = deps.services.push.subscriptions;

  r.get('/push-sw.js', (c) =>
    c.body(new Uint8Array(SERVICE_WORKER), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      // Browsers check for a new worker on navigation; no-cache makes them ask us.
      'cache-control': 'no-cache',
      'service-worker-allowed': '/',
    }),
  );

  r.use('/push/*', requireSession(deps));

  r.post('/push/subscriptions', async (c) => {
    const body = await jsonBody(c);
    const out = await subs.subscribe(c.get('viewer').id, body, c.req.header('user-agent'));
    return c.json(out, out.created ? 201 : 200);
  });

  r.post('/push/unsubscribe', async (c) => {
    const body = await jsonBody(c);
    const endpoint = body && typeof body === 'object' && 'endpoint' in body ? body.endpoint : undefined;
    return c.json({ removed: await subs.removeEndpoint(c.get('viewer').id, endpoint) });
  });

  r.post('/push/devices/:id/delete', async (c) => {
    // Someone else's id (or none) changes nothing and reads the same.
    await subs.remove(c.get('viewer').id, c.req.param('id'));
    return redirectWithFlash(c, '/profile#push', { notice: 'Device removed: it gets no more push notifications.' });
  });

  return r;
}
