import { accepted, type BodyOf } from '../helpers/bodies.js';
import { createHarness, postAlert, seedWorkspace, type Harness } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import type { Clock } from '../../src/lib/clock.js';
import { startNotifier, type Notifier, type NotifierOptions } from '../../src/notify/outbox-worker.js';

export const MAIL_FROM = 'Alertbridge <alerts@alertbridge.test>';
/** Tiny backoff so retries take milliseconds; the production numbers are tested in retry.test.ts. */
export const FAST_RETRY = { maxAttempts: 8, baseDelayMs: 20, maxDelayMs: 80 };

export interface NotifyHarness {
  h: Harness;
  seed: Awaited<ReturnType<typeof seedWorkspace>>;
  sink: SmtpSink;
  notifier: Notifier;
  /** Posts to the plain webhook; a refusal fails the test with its status and problem. */
  post(webhookToken: string, payload: unknown): Promise<BodyOf<'accepted'>>;
  close(): Promise<void>;
}

/** Real services on a temp DATA_DIR, a real SMTP sink, and the worker started the way runtime.ts starts it. */
export async function notifyHarness(opts: { clock?: Clock; notifier?: Partial<NotifierOptions>; sink?: SmtpSink; env?: Record<string, string> } = {}): Promise<NotifyHarness> {
  const sink = opts.sink ?? (await SmtpSink.start());
  const h = createHarness({ env: { ...opts.env, SMTP_URL: sink.url, MAIL_FROM }, overrides: opts.clock ? { clock: opts.clock } : {} });
  const seed = await seedWorkspace(h.services);
  const notifier = startNotifier(h.services, { retry: FAST_RETRY, ...opts.notifier });
  return {
    h,
    seed,
    sink,
    notifier,
    post: async (token, payload) => {
      const { res, body } = await postAlert(h, token, payload);
      if (res.status >= 300) throw new Error(`webhook answered ${res.status}: ${JSON.stringify(body)}`);
      return accepted(body);
    },
    close: async () => {
      await notifier.stop();
      await sink.close();
      await h.close();
    },
  };
}

/** Raw rows of a query; name the columns a test computes with in `T` (a small row interface). */
export function rows<T extends object = Record<string, unknown>>(h: Harness, sql: string, ...params: unknown[]): T[] {
  return h.services.db.sqlite.prepare(sql).all(...params) as T[];
}

