import { runAdmin } from '../../src/cli/admin.js';
import { ManualClock } from '../../src/lib/clock.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import type { PushWorker } from '../../src/notify/push/push-worker.js';
import { startPushWorker } from '../../src/notify/push/start.js';
import { startHarness, type Harness, seedWorkspace } from '../helpers/harness.js';
import type { FakePushService } from '../helpers/push-service.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY, MAIL_FROM } from './setup.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/147.0.0.0 Safari/537.36';

/**
 * The notification tests on an injected clock (silences, quiet hours, escalation): the service over
 * real HTTP on testEngine(), a real SMTP sink, the owner subscribed to a local push service, the
 * e-mail worker and (with `push`) the push worker started as runtime.ts starts them.
 */
export interface ClockedEnv {
  h: Harness;
  seed: Awaited<ReturnType<typeof seedWorkspace>>;
  sink: SmtpSink;
  clock: ManualClock;
  notifier: Notifier;
  push: PushWorker | null;
  /** The owner's subscription name at the push service (`svc.to(pushName)`). */
  pushName: string;
}

export async function startClocked(svc: FakePushService, startAt: number, opts: { push?: boolean } = {}): Promise<ClockedEnv> {
  const sink = await SmtpSink.start();
  const clock = new ManualClock(startAt);
  const h = await startHarness({ serve: true, env: { SMTP_URL: sink.url, MAIL_FROM, PUSH_ALLOW_PRIVATE: '1' }, overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  const pushName = `owner-${Date.now()}-${Math.random()}`;
  const sub = svc.subscription(pushName);
  await h.services.push.subscriptions.subscribe(seed.owner.id, { endpoint: sub.endpoint, expirationTime: null, keys: sub.keys }, UA);
  const notifier = startNotifier(h.services, { retry: FAST_RETRY });
  const push = opts.push ? startPushWorker(h.services, { ca: svc.ca, retry: FAST_RETRY }) : null;
  return { h, seed, sink, clock, notifier, push, pushName };
}

/** Stops what the env runs now (a test may have replaced its notifier by a restart). */
export async function stopClocked(e: ClockedEnv): Promise<void> {
  await e.push?.stop();
  await e.notifier.stop();
  await e.sink.close();
  await e.h.close();
}

/** The admin CLI against the env's service (its DATA_DIR, or its DATABASE_URL on PostgreSQL), JSON out. */
export async function adminJson(e: Pick<ClockedEnv, 'h'>, ...argv: string[]) {
  const env = { DATA_DIR: e.h.config.dataDir, LOG_LEVEL: 'silent', ...(e.h.config.databaseUrl ? { DATABASE_URL: e.h.config.databaseUrl } : {}) };
  const r = await runAdmin(argv, env);
  return { code: r.code, json: r.stdout ? (JSON.parse(r.stdout) as Record<string, unknown>) : null, stderr: r.stderr };
}
