import type { ChangeBus } from '../../domain/changes.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { DueRowWorker, dueRowWorkerDefaults, type DueRowWorkerOptions, type Enqueue } from '../due-row-worker.js';
import type { UnitRecipientRule } from '../../domain/notification-preferences.js';
import type { PushOutbox } from '../../domain/push-outbox.js';
import { PushSender, type PushSenderDeps } from './push-sender.js';
import type { PushTransport } from './transport.js';

/** The bus event the e-mail worker emits after a fan-out pass: push rows may be due. */
export const PUSH_WAKE_EVENT = 'push-deliveries';
export const PUSH_INTERRUPTED = 'interrupted mid-send (the process stopped during the push request); not retried, so that no one gets it twice';

export interface PushWorkerOptions extends DueRowWorkerOptions {
  onOutcome?: PushSenderDeps['onOutcome'];
}

export interface PushWorkerDeps {
  outbox: PushOutbox;
  prefs: Pick<UnitRecipientRule, 'recipientInUnit'>;
  transport: PushTransport;
  bus: ChangeBus;
  logger: Logger;
  clock: Clock;
  publicUrl: string;
  /** Signs each notification's Acknowledge and Resolve buttons for its recipient. */
  actionToken: (userId: string, alertId: string) => string;
}

/**
 * Sends Web Push deliveries from the database (push_deliveries, written by the
 * outbox fan-out). Like the e-mail worker (both are DueRowWorkers): woken by
 * the bus, a timer for the next retry and a slow poll as a safety net; a
 * p-queue bounds the requests in flight; every state lives in the rows, so a
 * restart loses nothing.
 */
export class PushWorker extends DueRowWorker<PushWorkerOptions> {
  private readonly sender: PushSender;

  constructor(
    private readonly deps: PushWorkerDeps,
    options: Partial<PushWorkerOptions> = {},
  ) {
    super({
      name: 'push',
      options: { ...dueRowWorkerDefaults(deps.clock), concurrency: 8, ...options },
      bus: deps.bus,
      wakeEvents: [PUSH_WAKE_EVENT, 'notifications'],
      logger: deps.logger,
      taskNoun: 'push',
      sentNoun: 'pushes',
    });
    this.sender = new PushSender({
      outbox: deps.outbox,
      prefs: deps.prefs,
      transport: deps.transport,
      logger: this.logger,
      now: () => this.now(),
      publicUrl: deps.publicUrl,
      actionToken: deps.actionToken,
      retry: this.options.retry,
      random: this.options.random,
      flood: { limit: this.options.floodLimit, windowMs: this.options.floodWindowMs },
      onOutcome: this.options.onOutcome,
    });
  }

  protected nextDue(): Promise<number | null> {
    return this.deps.outbox.nextDue();
  }

  protected async anythingDue(now: number): Promise<boolean> {
    return (await this.deps.outbox.due(now, 1)).length > 0;
  }

  protected recoverInterrupted(now: number): Promise<number> {
    return this.deps.outbox.recoverInterrupted(PUSH_INTERRUPTED, now);
  }

  protected prune(before: number, floodBefore: number): Promise<void> {
    return this.deps.outbox.prune(before, floodBefore);
  }

  /** Enqueues what is due (each task claims its row first). */
  protected async enqueueDue(now: number, room: number, enqueue: Enqueue): Promise<void> {
    if (room <= 0) return;
    for (const t of await this.deps.outbox.due(now, room + this.passes.inFlightCount)) {
      enqueue(`${t.jobId}:${t.subscriptionId}`, () => this.sender.send(t));
    }
  }
}
