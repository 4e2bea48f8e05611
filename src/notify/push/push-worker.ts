import type { ChangeBus } from '../../domain/changes.js';
import type { BackgroundPart } from '../../lib/background-part.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../../lib/backoff.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { DuePasses } from '../due-passes.js';
import { FLOOD_LIMIT, FLOOD_WINDOW_MS } from '../outbox/flood-guard.js';
import type { UnitRecipientRule } from '../preferences.js';
import type { PushOutbox } from './ports.js';
import { PushSender, type PushSenderDeps } from './push-sender.js';
import type { PushTransport } from './transport.js';

/** The bus event the e-mail worker emits after a fan-out pass: push rows may be due. */
export const PUSH_WAKE_EVENT = 'push-deliveries';
export const PUSH_INTERRUPTED = 'interrupted mid-send (the process stopped during the push request); not retried, so that no one gets it twice';

export interface PushWorkerOptions {
  concurrency: number;
  retry: RetryPolicy;
  floodLimit: number;
  floodWindowMs: number;
  pollIntervalMs: number;
  retentionMs: number;
  clock: Clock;
  random: () => number;
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
}

/**
 * Sends Web Push deliveries from the database (push_deliveries, written by the
 * outbox fan-out). Like the e-mail worker: woken by the bus, a timer for the
 * next retry and a slow poll as a safety net; a p-queue bounds the requests in
 * flight; every state lives in the rows, so a restart loses nothing.
 */
export class PushWorker implements BackgroundPart {
  readonly name = 'push';
  readonly options: PushWorkerOptions;
  private readonly logger: Logger;
  private readonly passes: DuePasses;
  private readonly sender: PushSender;
  private readonly onBus = () => this.wake();
  private lastPrune = 0;

  constructor(
    private readonly deps: PushWorkerDeps,
    options: Partial<PushWorkerOptions> = {},
  ) {
    this.options = {
      concurrency: 8,
      retry: DEFAULT_RETRY,
      floodLimit: FLOOD_LIMIT,
      floodWindowMs: FLOOD_WINDOW_MS,
      pollIntervalMs: 30_000,
      retentionMs: 7 * 24 * 60 * 60 * 1000,
      clock: deps.clock,
      random: Math.random,
      ...options,
    };
    this.logger = deps.logger.child({ part: 'push' });
    this.sender = new PushSender({
      outbox: deps.outbox,
      prefs: deps.prefs,
      transport: deps.transport,
      logger: this.logger,
      now: () => this.now(),
      publicUrl: deps.publicUrl,
      retry: this.options.retry,
      random: this.options.random,
      flood: { limit: this.options.floodLimit, windowMs: this.options.floodWindowMs },
      onOutcome: this.options.onOutcome,
    });
    this.passes = new DuePasses(
      {
        pass: (now, room, enqueue) => this.pass(now, room, enqueue),
        nextDue: () => deps.outbox.nextDue(),
        anythingDue: async (now) => (await deps.outbox.due(now, 1)).length > 0,
        taskFailed: (err, key) => this.logger.error({ err, key }, 'push send crashed'),
        passFailed: (err) => this.logger.error({ err }, 'push pass failed'),
      },
      { concurrency: this.options.concurrency, pollIntervalMs: this.options.pollIntervalMs, now: () => this.now() },
    );
  }

  start(): this {
    if (this.passes.running) return this;
    const recovered = this.deps.outbox.recoverInterrupted(PUSH_INTERRUPTED, this.now()).then(
      (n) => {
        if (n > 0) this.logger.warn({ interrupted: n }, 'pushes interrupted by a crash mid-send are recorded as failed, not resent');
      },
      (err: unknown) => this.logger.error({ err }, 'recording interrupted pushes failed'),
    );
    this.deps.bus.on(PUSH_WAKE_EVENT, this.onBus);
    this.deps.bus.on('notifications', this.onBus);
    this.passes.start(recovered);
    return this;
  }

  async stop(): Promise<void> {
    if (!this.passes.running) return;
    this.deps.bus.off(PUSH_WAKE_EVENT, this.onBus);
    this.deps.bus.off('notifications', this.onBus);
    await this.passes.stop();
  }

  wake(): void {
    this.passes.wake();
  }

  /** Resolves once nothing is due now and nothing is in flight (tests). */
  whenIdle(): Promise<void> {
    return this.passes.whenIdle();
  }

  private now(): number {
    return this.options.clock.now();
  }

  /** One pass: send what is due (each task claims its row first), prune now and then. */
  private async pass(now: number, room: number, enqueue: (key: string, task: () => Promise<void>) => boolean): Promise<void> {
    if (room > 0) {
      for (const t of await this.deps.outbox.due(now, room + this.passes.inFlightCount)) {
        enqueue(`${t.jobId}:${t.subscriptionId}`, () => this.sender.send(t));
      }
    }
    if (now - this.lastPrune >= 60 * 60_000) {
      this.lastPrune = now;
      await this.deps.outbox.prune(now - this.options.retentionMs, now - this.options.floodWindowMs);
    }
  }
}
