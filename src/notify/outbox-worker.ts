import type { UnsubscribeLinks } from '../domain/auth/unsubscribe-links.js';
import type { Config } from '../config.js';
import type { AlertStore } from '../domain/alert-store.js';
import type { ChangeBus } from '../domain/changes.js';
import type { BackgroundPart } from '../lib/background-part.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { MediaStore } from '../media/store.js';
import { DuePasses } from './due-passes.js';
import { SmtpMailer, type Mailer } from './mailer.js';
import { FanOut } from './outbox/fan-out.js';
import { FLOOD_LIMIT, FLOOD_WINDOW_MS } from './outbox/flood-guard.js';
import { OutboxSender } from './outbox/sender.js';
import type { UnitRecipientRule } from './preferences.js';

export { FLOOD_LIMIT, FLOOD_WINDOW_MS } from './outbox/flood-guard.js';

/** SMTP conversations in flight at once. */
const SEND_CONCURRENCY = 4;
/** Safety-net wake-up: catches jobs written by another process (the CLI) whose bus event we never see. */
const POLL_INTERVAL_MS = 30_000;
/** Finished jobs, delivery records and digests are kept this long, then pruned. */
const NOTIFY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_INTERVAL_MS = 60 * 60_000;

export const INTERRUPTED =
  'interrupted mid-send (the process stopped between claiming and recording the send); not retried, so that no one gets it twice';

export interface NotifierOptions {
  /** null: e-mail is off; jobs are marked done without deliveries. */
  mailer: Mailer | null;
  concurrency: number;
  retry: RetryPolicy;
  floodLimit: number;
  floodWindowMs: number;
  pollIntervalMs: number;
  retentionMs: number;
  clock: Clock;
  random: () => number;
  /** Told each attempt's outcome (the metrics); must not throw. */
  onOutcome?: (outcome: 'sent' | 'retry' | 'failed') => void;
}

/** What the worker uses (the services container satisfies it). */
export interface NotifierDeps {
  store: Pick<AlertStore, 'outbox'>;
  bus: ChangeBus;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'publicUrl' | 'smtpUrl' | 'mailFrom'>;
  media: Pick<MediaStore, 'urlFor'>;
  /** The recipient rule as the fan-out and the claims read it inside their store units. */
  unitRecipients: UnitRecipientRule;
  /** Signs the one-click unsubscribe links and names the dashboard pages an e-mail links to. */
  unsubscribe: Pick<UnsubscribeLinks, 'forEmail'>;
}

/**
 * The outbox worker. The database is the queue: `notification_jobs` rows are
 * written by ingest in the alert's own transaction; each pass fans due jobs out
 * into delivery rows (FanOut), then sends due deliveries and digests
 * (OutboxSender) through a p-queue that only bounds concurrency. Every state it
 * needs lives in those rows, so start() rebuilds from them and a restart loses
 * nothing.
 *
 * Exactly once per (job, recipient): see OutboxSender. A row still `sending`
 * at start was cut off by a crash; it is recorded as failed and never resent.
 * So the only window is a crash during the SMTP conversation itself, and it
 * errs towards "not twice".
 */
export class Notifier implements BackgroundPart {
  readonly name = 'notifier';
  readonly options: NotifierOptions;
  private readonly logger: Logger;
  private readonly passes: DuePasses;
  private readonly fanOut: FanOut;
  private readonly sender: OutboxSender | null;
  private readonly onBus = () => this.wake();
  private lastPrune = 0;

  constructor(
    private readonly deps: NotifierDeps,
    options: Partial<NotifierOptions> & { mailer: Mailer | null },
  ) {
    this.options = {
      concurrency: SEND_CONCURRENCY,
      retry: DEFAULT_RETRY,
      floodLimit: FLOOD_LIMIT,
      floodWindowMs: FLOOD_WINDOW_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
      retentionMs: NOTIFY_RETENTION_MS,
      clock: deps.clock,
      random: Math.random,
      ...options,
    };
    const { outbox } = deps.store;
    const { retry, random, mailer } = this.options;
    this.logger = deps.logger.child({ part: 'notifier' });
    this.fanOut = new FanOut({ outbox, prefs: deps.unitRecipients, logger: this.logger, retry, random });
    this.sender = mailer
      ? new OutboxSender({
          outbox,
          prefs: deps.unitRecipients,
          mailer,
          logger: this.logger,
          now: () => this.now(),
          mediaUrl: (key) => deps.media.urlFor(key),
          messageHost: hostOf(deps.config.publicUrl),
          retry,
          random,
          flood: { limit: this.options.floodLimit, windowMs: this.options.floodWindowMs },
          links: (userId, channelId) => deps.unsubscribe.forEmail(userId, channelId),
          onOutcome: this.options.onOutcome,
        })
      : null;
    this.passes = new DuePasses(
      {
        pass: (now, room, enqueue) => this.pass(now, room, enqueue),
        nextDue: () => outbox.nextDue(this.emailEnabled),
        anythingDue: (now) => outbox.anythingDue(now, this.emailEnabled),
        taskFailed: (err, key) => this.logger.error({ err, key }, 'notification send crashed'),
        passFailed: (err) => this.logger.error({ err }, 'notification pass failed'),
      },
      { concurrency: this.options.concurrency, pollIntervalMs: this.options.pollIntervalMs, now: () => this.now() },
    );
  }

  get emailEnabled(): boolean {
    return this.options.mailer !== null;
  }

  /**
   * Rebuilds from the database and starts listening. Returns this for
   * chaining; the first pass waits for the crash recovery, so nothing left
   * `sending` by a crash can be claimed before it is recorded as interrupted.
   */
  start(): this {
    if (this.passes.running) return this;
    const recovered = this.deps.store.outbox.recoverInterrupted(INTERRUPTED, this.now()).then(
      (interrupted) => {
        if (interrupted > 0) this.logger.warn({ interrupted }, 'e-mails interrupted by a crash mid-send are recorded as failed, not resent');
      },
      (err: unknown) => this.logger.error({ err }, 'recording interrupted e-mails failed'),
    );
    if (!this.options.mailer) this.logger.info('e-mail off: set SMTP_URL');
    this.deps.bus.on('notifications', this.onBus);
    this.passes.start(recovered);
    return this;
  }

  /** Stops taking work and waits for the SMTP conversations in flight. */
  async stop(): Promise<void> {
    if (!this.passes.running) return;
    this.deps.bus.off('notifications', this.onBus);
    await this.passes.stop();
    this.options.mailer?.close();
  }

  /** Schedules a pass over due work (coalesced: many wake-ups in one turn make one pass). */
  wake(): void {
    this.passes.wake();
  }

  /**
   * Resolves once nothing is due now and nothing is in flight. For tests and
   * diagnostics; retries scheduled in the future do not count as due.
   */
  whenIdle(): Promise<void> {
    return this.passes.whenIdle();
  }

  private now(): number {
    return this.options.clock.now();
  }

  /** One pass: fan due jobs out, send due deliveries and digests, prune now and then. */
  private async pass(now: number, room: number, enqueue: (key: string, task: () => Promise<void>) => boolean): Promise<void> {
    if (await this.fanOut.due(now, this.emailEnabled)) this.passes.passAgain();
    // The fan-out also wrote Web Push rows (src/notify/push/push-worker.ts sends them).
    this.deps.bus.emit('push-deliveries');
    const sender = this.sender;
    if (sender && room > 0) {
      const { outbox } = this.deps.store;
      const limit = room + this.passes.inFlightCount;
      let added = 0;
      for (const d of await outbox.dueDeliveries(now, limit)) {
        if (added >= room) break;
        if (enqueue(`d:${d.jobId}:${d.userId}`, () => sender.sendDelivery(d.jobId, d.userId))) added++;
      }
      for (const id of await outbox.dueDigests(now, limit)) {
        if (added >= room) break;
        if (enqueue(`g:${id}`, () => sender.sendDigest(id))) added++;
      }
    }
    if (now - this.lastPrune >= PRUNE_INTERVAL_MS) {
      this.lastPrune = now;
      await this.deps.store.outbox.prune(now - this.options.retentionMs, now - this.options.floodWindowMs);
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'alertbridge.local';
  } catch {
    return 'alertbridge.local';
  }
}

/**
 * The worker as the runtime starts it: SMTP from SMTP_URL/MAIL_FROM, or e-mail
 * off (logged once) when SMTP_URL is unset.
 */
export function startNotifier(s: NotifierDeps, options: Partial<NotifierOptions> = {}): Notifier {
  const mailer = options.mailer !== undefined ? options.mailer : s.config.smtpUrl ? new SmtpMailer(s.config.smtpUrl, s.config.mailFrom) : null;
  return new Notifier(s, { ...options, mailer }).start();
}
