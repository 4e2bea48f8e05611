import type { AlertActionLinks } from '../../domain/alert-action-links.js';
import type { Config } from '../../config.js';
import type { ChangeBus } from '../../domain/changes.js';
import type { UnitRecipientRule } from '../../domain/notification-preferences.js';
import type { PushOutbox } from '../../domain/push-outbox.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { PushWorker, type PushWorkerOptions } from './push-worker.js';
import { createPushTransport, type PushTransport } from './transport.js';
import { vapidSubject, type VapidKeys } from './vapid.js';

/** What starting the push worker takes from the composition root (its services fit this shape). */
export interface PushStarterDeps {
  push: { vapid: VapidKeys; outbox: PushOutbox };
  unitRecipients: Pick<UnitRecipientRule, 'recipientInUnit'>;
  bus: ChangeBus;
  logger: Logger;
  clock: Clock;
  config: Pick<Config, 'publicUrl' | 'mailFrom' | 'pushAllowPrivate'>;
  alertActionLinks: Pick<AlertActionLinks, 'token'>;
}

/** The push worker as the runtime starts it: VAPID keys from the database, the SSRF-guarded transport. */
export function startPushWorker(
  deps: PushStarterDeps,
  options: Partial<PushWorkerOptions> & { transport?: PushTransport; ca?: string | Buffer } = {},
): PushWorker {
  const { transport, ca, ...rest } = options;
  const { config } = deps;
  return new PushWorker(
    {
      outbox: deps.push.outbox,
      prefs: deps.unitRecipients,
      transport:
        transport ??
        createPushTransport({
          vapid: deps.push.vapid,
          subject: vapidSubject(config.publicUrl, config.mailFrom),
          allowPrivate: config.pushAllowPrivate,
          ca,
        }),
      bus: deps.bus,
      logger: deps.logger,
      clock: deps.clock,
      publicUrl: config.publicUrl,
      actionToken: (userId, alertId) => deps.alertActionLinks.token(userId, alertId, 'any', 'push'),
    },
    rest,
  ).start();
}
