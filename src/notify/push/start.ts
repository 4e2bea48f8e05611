import type { Services } from '../../services.js';
import { PushWorker, type PushWorkerOptions } from './push-worker.js';
import { createPushTransport, type PushTransport } from './transport.js';
import { vapidSubject } from './vapid.js';

/** The push worker as the runtime starts it: VAPID keys from the database, the SSRF-guarded transport. */
export function startPushWorker(
  s: Pick<Services, 'push' | 'unitRecipients' | 'bus' | 'logger' | 'clock' | 'config'>,
  options: Partial<PushWorkerOptions> & { transport?: PushTransport; ca?: string | Buffer } = {},
): PushWorker {
  const { transport, ca, ...rest } = options;
  return new PushWorker(
    {
      outbox: s.push.outbox,
      prefs: s.unitRecipients,
      transport:
        transport ??
        createPushTransport({
          vapid: s.push.vapid,
          subject: vapidSubject(s.config.publicUrl, s.config.mailFrom),
          allowPrivate: s.config.pushAllowPrivate,
          ca,
        }),
      bus: s.bus,
      logger: s.logger,
      clock: s.clock,
      publicUrl: s.config.publicUrl,
    },
    rest,
  ).start();
}
