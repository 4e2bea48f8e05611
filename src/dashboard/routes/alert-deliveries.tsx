import { Hono } from 'hono';
import type { RouteKind } from '../../domain/routes/route-kinds.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { isManager, requireRole, requireSession } from '../http/session.js';
import { alertDeliveriesPage } from '../pages/alert-deliveries.js';
import { sessionPrincipal } from './feed.js';

/** An alert's delivery log, reached from its card's Deliveries action: the API endpoint's use case, as a page. */
export function alertDeliveryRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const { services } = deps;
  const r = new Hono<DashEnv>();
  r.use('/alerts/:id/deliveries', requireSession(deps));
  r.get('/alerts/:id/deliveries', async (c) => {
    const ws = requireRole(c);
    const p = sessionPrincipal(c);
    // Both throw "not found" for an alert the viewer cannot see, as GET /api/alerts/{id}/deliveries answers 404.
    const alert = await services.readApi.getAlert(p, c.req.param('id'));
    const deliveries = await services.alertDeliveries.list(p, alert.id);
    const channel = (await services.readApi.listChannels(p)).find((ch) => ch.id === alert.channelId);
    const routeKinds = new Map<string, RouteKind>((await services.routes.routes.list(alert.channelId)).map((route) => [route.id, route.kind]));
    const title = 'title' in alert ? alert.title : `message from ${alert.author.name}`;
    return alertDeliveriesPage(c, {
      alert: { id: alert.id, title, channelId: alert.channelId },
      channel: { name: channel?.name ?? 'Channel', slug: channel?.slug ?? alert.channelId },
      deliveries,
      routeKinds,
      manager: isManager(ws.role),
    });
  });
  return r;
}
