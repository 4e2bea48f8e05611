import type { Config } from '../../config.js';
import type { ChangeBus } from '../../domain/changes.js';
import type { AlertSuppression } from '../../domain/routes/alert-events.js';
import type { RouteOutboxStore } from '../../domain/routes/route-outbox.js';
import type { RouteRow } from '../../domain/routes/route-rows.js';
import type { RouteTarget } from '../../domain/routes/route-kinds.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { RouteWorker, type RouteWorkerOptions } from './route-worker.js';
import type { RouteTransport } from './transport.js';

/** What starting the route worker takes from the composition root (its services fit this shape). */
export interface RouteStarterDeps {
  routes: {
    routes: { openTarget(route: Pick<RouteRow, 'targetSealed'>): RouteTarget };
    outbox: RouteOutboxStore;
    box: SecretBox;
    transport: RouteTransport;
    suppressed: AlertSuppression;
    /** E-mails owners and admins when the worker pauses a route (once per pause). */
    pauseNotices?: { notify(route: RouteRow, reason: string): Promise<unknown> };
  };
  media: { urlFor(key: string): string };
  bus: ChangeBus;
  logger: Logger;
  clock: Clock;
  config: Pick<Config, 'publicUrl' | 'routeGiveUpMs'>;
}

/** The route worker as the runtime starts it, on every node (each row is claimed by one). */
export function startRouteWorker(
  deps: RouteStarterDeps,
  options: Partial<RouteWorkerOptions> & { onPaused?: (route: RouteRow, reason: string) => Promise<void> } = {},
): RouteWorker {
  const { onPaused, ...rest } = options;
  const { routes } = deps;
  return new RouteWorker(
    {
      keyId: routes.box.keyId,
      outbox: routes.outbox,
      transport: routes.transport,
      openTarget: (route) => routes.routes.openTarget(route),
      suppressed: routes.suppressed,
      onPaused: onPaused ?? (async (route, reason) => void (await routes.pauseNotices?.notify(route, reason))),
      bus: deps.bus,
      logger: deps.logger,
      clock: deps.clock,
      publicUrl: deps.config.publicUrl,
      mediaUrl: (key) => deps.media.urlFor(key),
    },
    { giveUpMs: deps.config.routeGiveUpMs, ...rest },
  ).start();
}
