import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { ROUTE_EVENTS } from '../../domain/routes/route-kinds.js';
import type { AppEnv } from '../env.js';
import { StandardAlert } from '../schemas.js';

/**
 * What a `webhook` route POSTs to its receiver (docs/routes.md), described in the OpenAPI 3.1
 * document's `webhooks` section: the alert's standard shape (without the reader's `isRead`), the
 * event and the channel, signed per Standard Webhooks. Documentation only; nothing is served here.
 */
export const RouteWebhookEvent = StandardAlert.omit({ isRead: true })
  .extend({
    event: z.enum(ROUTE_EVENTS).openapi({ description: 'What happened: a reopen is an `alert.opened`.' }),
    channel: z.object({ id: z.string(), slug: z.string().nullable(), name: z.string().nullable() }),
    test: z.boolean().optional().openapi({ description: 'Present and true only on a route test’s sample alert.' }),
  })
  .openapi('RouteWebhookEvent');

export function registerRouteWebhookEvent(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerWebhook({
    method: 'post',
    path: 'alert-route-event',
    summary: 'An alert event forwarded by a `webhook` route',
    description:
      'Sent to the route’s URL for the events its filter names. Verify it with a Standard Webhooks library and the route’s `whsec_` secret; drop a repeat by its `webhook-id` (stable per event and route). Answer 2xx; a network error, 429 or 5xx is retried after max(Retry-After, 10 s), doubling up to 15 minutes, for 24 hours.',
    request: {
      headers: z.object({
        'webhook-id': z.string().openapi({ description: 'Stable per (event, route): a resend carries the same id.' }),
        'webhook-timestamp': z.string().openapi({ description: 'Unix seconds when this attempt was signed.' }),
        'webhook-signature': z.string().openapi({ description: '`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the route’s secret.' }),
      }),
      body: { content: { 'application/json': { schema: RouteWebhookEvent } } },
    },
    responses: { 200: { description: 'Received (any 2xx).' } },
  });
}
