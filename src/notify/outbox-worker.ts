import type { AlertActionLinks } from '../domain/alert-action-links.js';
import type { UnsubscribeLinks } from '../domain/auth/unsubscribe-links.js';
import type { Config } from '../config.js';
import type { AlertStore } from '../domain/alert-store.js';
import type { ChangeBus } from '../domain/changes.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { MediaStore } from '../media/store.js';
import { DueRowWorker, dueRowWorkerDefaults, type DueRowWorkerOptions, type Enqueue } from './due-row-worker.js';
import { SmtpMailer, type Mailer } from './mailer.js';
import { FanOut } from './outbox/fan-out.js';
import { OutboxSender } from './outbox/sender.js';
import type { UnitRecipientRule } from '../domain/notification-preferences.js';
import type { QuietDigestOutbox } from '../domain/quiet-digests.js';
import { QuietDigestSender } from './outbox/quiet-digest-sender.js';

export { FLOOD_LIMIT, FLOOD_WINDOW_MS } from './outbox/flood-guard.js';

/** SMTP conversations in flight at once. */
const SEND_CONCURRENCY = 4;

export const INTERRUPTED =
  'interrupted mid-send (the process stopped between claiming and recording the send); not retried, so that no one gets it twice';

export interface NotifierOptions extends DueRowWorkerOptions {
  /** null: e-mail is off; jobs are marked done without deliveries. */
  mailer: Mailer | null;
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
  /** Signs the e-mail's Acknowledge and Resolve buttons for each recipient. */
  alertActionLinks: Pick<AlertActionLinks, 'url'>;
  /** Quiet-hours digests (src/domain/quiet-digests.ts): sent by this worker when their window ends. */
  quietDigests?: QuietDigestOutbox;
}

/**
 * The outbox worker. The database is the queue: `notification_jobs` rows are
 * written by ingest in the alert's own transaction; each pass fans due jobs out
 * into delivery rows (FanOut), then sends due deliveries and digests
 * (OutboxSender) through a p-queue that only bounds concurrency. The wake-ups,
 * crash recovery and pruning are DueRowWorker's.
 *
 * Exactly once per (job, recipient): see OutboxSender. A row still `sending`
 * at start was cut off by a crash; it is recorded as failed and never resent.
 * So the only window is a crash during the SMTP conversation itself, and it
 * errs towards "not twice".
 */
export class Notifier extends DueRowWorker<NotifierOptions> {
  private readonly fanOut: FanOut;
  private readonly sender: OutboxSender | null;
  private readonly quietSender: QuietDigestSender | null;

  constructor(
    private readonly deps: NotifierDeps,
    options: Partial<NotifierOptions> & { mailer: Mailer | null },
  ) {
    super({
      name: 'notifier',
      options: { ...dueRowWorkerDefaults(deps.clock), concurrency: SEND_CONCURRENCY, ...options },
      bus: deps.bus,
      wakeEvents: ['notifications'],
      logger: deps.logger,
      taskNoun: 'notification',
      sentNoun: 'e-mails',
    });
    const { outbox } = deps.store;
    const { retry, random, mailer } = this.options;
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
          links: (userId, channelId, alertId) => ({
            ...deps.unsubscribe.forEmail(userId, channelId),
            ...(alertId
              ? { actions: { acknowledgeUrl: deps.alertActionLinks.url(userId, alertId, 'acknowledge'), resolveUrl: deps.alertActionLinks.url(userId, alertId, 'resolve') } }
              : {}),
          }),
          onOutcome: this.options.onOutcome,
        })
      : null;
    const digests = deps.quietDigests;
    this.quietSender =
      mailer && digests
        ? new QuietDigestSender({
            digests,
            mailer,
            logger: this.logger,
            now: () => this.now(),
            publicUrl: deps.config.publicUrl.replace(/\/+$/, ''),
            messageHost: hostOf(deps.config.publicUrl),
            retry,
            random,
            onOutcome: this.options.onOutcome,
          })
        : null;
  }

  get emailEnabled(): boolean {
    return this.options.mailer !== null;
  }

  override start(): this {
    if (!this.passes.running && !this.options.mailer) this.logger.info('e-mail off: set SMTP_URL');
    return super.start();
  }

  protected override stopped(): void {
    this.options.mailer?.close();
  }

  protected async nextDue(): Promise<number | null> {
    const due = await this.deps.store.outbox.nextDue(this.emailEnabled);
    const quiet = this.quietSender ? await this.deps.quietDigests!.nextDue() : null;
    return due === null ? quiet : quiet === null ? due : Math.min(due, quiet);
  }

  protected async anythingDue(now: number): Promise<boolean> {
    return (await this.deps.store.outbox.anythingDue(now, this.emailEnabled)) || (this.quietSender !== null && (await this.deps.quietDigests!.anythingDue(now)));
  }

  protected async recoverInterrupted(now: number): Promise<number> {
    const quiet = this.deps.quietDigests ? await this.deps.quietDigests.recoverInterrupted(INTERRUPTED, now) : 0;
    return quiet + (await this.deps.store.outbox.recoverInterrupted(INTERRUPTED, now));
  }

  protected async prune(before: number, floodBefore: number): Promise<void> {
    await this.deps.store.outbox.prune(before, floodBefore);
    await this.deps.quietDigests?.prune(before);
  }

  /** Fans due jobs out, then enqueues due deliveries and digests. */
  protected async enqueueDue(now: number, room: number, enqueue: Enqueue): Promise<void> {
    if (await this.fanOut.due(now, this.emailEnabled)) this.passes.passAgain();
    // The fan-out also wrote Web Push rows (src/notify/push/push-worker.ts sends them).
    this.deps.bus.emit('push-deliveries');
    const sender = this.sender;
    if (!sender || room <= 0) return;
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
    const quiet = this.quietSender;
    if (!quiet) return;
    for (const id of await this.deps.quietDigests!.due(now, limit)) {
      if (added >= room) break;
      if (enqueue(`q:${id}`, () => quiet.send(id))) added++;
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
export function startNotifier(deps: NotifierDeps, options: Partial<NotifierOptions> = {}): Notifier {
  const mailer = options.mailer !== undefined ? options.mailer : deps.config.smtpUrl ? new SmtpMailer(deps.config.smtpUrl, deps.config.mailFrom) : null;
  return new Notifier(deps, { ...options, mailer }).start();
}
