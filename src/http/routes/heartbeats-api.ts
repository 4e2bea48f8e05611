import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { heartbeatJson } from '../../domain/heartbeats/heartbeats.js';
import type { AppEnv } from '../env.js';
import { problemResponses } from '../schemas.js';

const iso = z.string().nullable().openapi({ format: 'date-time' });

const Heartbeat = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string().openapi({ description: 'Unique in the workspace: `/ping/{ping-key}/{slug}` pings it too.' }),
    channelId: z.string(),
    status: z.enum(['new', 'up', 'late', 'down', 'paused']),
    schedule: z.union([z.object({ period: z.number().openapi({ description: 'Seconds between pings' }) }), z.object({ cron: z.string(), tz: z.string() })]),
    graceSeconds: z.number(),
    pingUrl: z.string().openapi({ description: "The check's ping URL; its UUID is the check's credential." }),
    lastPingAt: iso,
    nextDueAt: iso,
    lastDurationMs: z.number().nullable().openapi({ description: 'The last run measured from a /start to its end' }),
  })
  .openapi('Heartbeat');

const listRoute = createRoute({
  method: 'get',
  path: '/api/heartbeats',
  summary: "The heartbeat checks of the channels the token can see, with each one's state",
  description: 'States: new (never pinged), up, late (past its due time, within the grace), down, paused. See docs/heartbeats.md for the ping URLs.',
  security: [{ bearerAuth: [] }],
  responses: {
    200: { description: 'The checks, by name', content: { 'application/json': { schema: z.array(Heartbeat) } } },
    ...problemResponses,
  },
});

export function registerHeartbeatsApi(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) => {
    const { services, principal } = c.var;
    const visible = new Set(await services.store.reads.visibleChannelIds(principal));
    const checks = (await services.heartbeats.checks.ofWorkspace(principal.workspaceId)).filter((h) => visible.has(h.channelId));
    const now = services.heartbeats.clock.now();
    return c.json(
      checks.map((h) => heartbeatJson(h, now, services.config.publicUrl)),
      200,
    );
  });
}
