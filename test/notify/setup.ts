import { accepted, type BodyOf } from '../helpers/bodies.js';
import { startHarness, type Harness, postAlert, seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import type { Clock } from '../../src/lib/clock.js';
import type { Logger } from '../../src/lib/logger.js';
import { startNotifier, type Notifier, type NotifierOptions } from '../../src/notify/outbox-worker.js';
import { eventually } from '../helpers/poll.js';

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

/** Real services on testEngine() (a temp SQLite file or a fresh PostgreSQL database), a real SMTP sink, and the worker started the way runtime.ts starts it. */
export async function notifyHarness(
  opts: { clock?: Clock; logger?: Logger; notifier?: Partial<NotifierOptions>; sink?: SmtpSink; env?: Record<string, string> } = {},
): Promise<NotifyHarness> {
  const sink = opts.sink ?? (await SmtpSink.start());
  const overrides = { ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.logger ? { logger: opts.logger } : {}) };
  const h = await startHarness({ env: { ...opts.env, SMTP_URL: sink.url, MAIL_FROM }, overrides });
  const seed = await seedWorkspace(h.services);
  const notifier = startNotifier(h.services, { retry: FAST_RETRY, ...opts.notifier });
  const t: NotifyHarness = {
    h,
    seed,
    sink,
    notifier,
    post: async (token, payload) => {
      const { res, body } = await postAlert(h, token, payload);
      if (res.status >= 300) throw new Error(`webhook answered ${res.status}: ${JSON.stringify(body)}`);
      return accepted(body);
    },
    // The test may have replaced `notifier` (a restart): stop the current one.
    close: async () => {
      await t.notifier.stop();
      await sink.close();
      await h.close();
    },
  };
  return t;
}

/**
 * Raw rows of a query through the harness's other connection (`?` placeholders, valid SQL on both
 * engines: quote camelCase aliases, `AS "lastError"`, as PostgreSQL folds unquoted names to lower case).
 * Name the columns a test computes with in `T` (a small row interface).
 */
export async function rows<T extends object = Record<string, unknown>>(h: Pick<Harness, 'query'>, sql: string, ...params: unknown[]): Promise<T[]> {
  return (await h.query(sql, params)) as T[];
}

/** `eventually` whose "last seen" is read from the database (async) each time the check is still false. */
export async function eventuallySeeing<T>(check: () => T | Promise<T>, what: string, seen: () => Promise<unknown>): Promise<NonNullable<T>> {
  let last: unknown;
  return eventually(
    async () => {
      const value = await check();
      if (!value) last = await seen();
      return value;
    },
    what,
    { seen: () => last },
  );
}
