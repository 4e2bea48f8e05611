import type { ChangeBus } from '../domain/changes.js';
import type { BackgroundPart } from '../lib/background-part.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { DuePasses } from './due-passes.js';
import { FLOOD_LIMIT, FLOOD_WINDOW_MS } from './outbox/flood-guard.js';

/** The knobs every worker over due rows has (the e-mail outbox, Web Push). */
export interface DueRowWorkerOptions {
  concurrency: number;
  retry: RetryPolicy;
  floodLimit: number;
  floodWindowMs: number;
  pollIntervalMs: number;
  retentionMs: number;
  clock: Clock;
  random: () => number;
  /**
   * Also record rows left `sending` at every prune, not only at start: with several nodes
   * (PostgreSQL) a node that died mid-send is not the one that restarts, and the store only takes
   * rows older than its send lease. On SQLite it stays start-only: a row `sending` then is this
   * process's own send.
   */
  recoverEachPrune: boolean;
}

/** Safety-net wake-up: catches rows written by another process (the CLI) whose bus event we never see. */
const POLL_INTERVAL_MS = 30_000;
/** Finished rows (jobs, deliveries, digests, pushes) are kept this long, then pruned. */
const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_INTERVAL_MS = 60 * 60_000;

/** The defaults both workers start from; each adds its own concurrency. */
export function dueRowWorkerDefaults(clock: Clock): Omit<DueRowWorkerOptions, 'concurrency'> {
  return {
    retry: DEFAULT_RETRY,
    floodLimit: FLOOD_LIMIT,
    floodWindowMs: FLOOD_WINDOW_MS,
    pollIntervalMs: POLL_INTERVAL_MS,
    retentionMs: RETENTION_MS,
    clock,
    random: Math.random,
    recoverEachPrune: false,
  };
}

/** How a worker is wired: its name, what wakes it, and the words its logs use. */
export interface DueRowWorkerSetup<O extends DueRowWorkerOptions> {
  name: string;
  options: O;
  bus: ChangeBus;
  /** Bus events that may have made rows due. */
  wakeEvents: readonly string[];
  logger: Logger;
  /** Names one task in the logs: "<task> send crashed", "<task> pass failed". */
  taskNoun: string;
  /** Names the rows a crash cut off mid-send: "<plural> interrupted by a crash mid-send ...". */
  sentNoun: string;
  /** What happens to those rows; default: recorded as failed, never resent. */
  interruptedFate?: string;
}

export type Enqueue = (key: string, task: () => Promise<void>) => boolean;

/**
 * A worker over due rows: wakes on bus events, a timer for the next retry and a
 * slow poll (DuePasses), records rows a crash left mid-send before its first
 * pass, and prunes finished rows now and then. Every state it needs lives in
 * the rows, so start() rebuilds from them and a restart loses nothing. A
 * subclass says what is due, how a due row is sent, and how rows are recovered
 * and pruned.
 */
export abstract class DueRowWorker<O extends DueRowWorkerOptions> implements BackgroundPart {
  readonly name: string;
  readonly options: O;
  protected readonly logger: Logger;
  protected readonly passes: DuePasses;
  private readonly bus: ChangeBus;
  private readonly wakeEvents: readonly string[];
  private readonly sentNoun: string;
  private readonly interruptedFate: string;
  private readonly onBus = () => this.wake();
  private lastPrune = 0;

  protected constructor(setup: DueRowWorkerSetup<O>) {
    this.name = setup.name;
    this.options = setup.options;
    this.bus = setup.bus;
    this.wakeEvents = setup.wakeEvents;
    this.sentNoun = setup.sentNoun;
    this.interruptedFate = setup.interruptedFate ?? 'are recorded as failed, not resent';
    this.logger = setup.logger.child({ part: setup.name });
    const { taskNoun } = setup;
    this.passes = new DuePasses(
      {
        pass: (now, room, enqueue) => this.pass(now, room, enqueue),
        nextDue: () => this.nextDue(),
        anythingDue: (now) => this.anythingDue(now),
        taskFailed: (err, key) => this.logger.error({ err, key }, `${taskNoun} send crashed`),
        passFailed: (err) => this.logger.error({ err }, `${taskNoun} pass failed`),
      },
      { concurrency: this.options.concurrency, pollIntervalMs: this.options.pollIntervalMs, now: () => this.now() },
    );
  }

  /** Selects what is due at `now` and enqueues it (at most `room` more tasks than are in flight). */
  protected abstract enqueueDue(now: number, room: number, enqueue: Enqueue): Promise<void>;
  /** The earliest future due time, or null. */
  protected abstract nextDue(): Promise<number | null>;
  /** Whether anything is due at `now`. */
  protected abstract anythingDue(now: number): Promise<boolean>;
  /** Records the rows a crash left mid-send as failed (never resent); returns how many. */
  protected abstract recoverInterrupted(now: number): Promise<number>;
  /** Deletes finished rows older than `before`, and flood-guard records older than `floodBefore`. */
  protected abstract prune(before: number, floodBefore: number): Promise<void>;

  /**
   * Rebuilds from the database and starts listening. Returns this for
   * chaining; the first pass waits for the crash recovery, so nothing left
   * `sending` by a crash can be claimed before it is recorded as interrupted.
   */
  start(): this {
    if (this.passes.running) return this;
    const recovered = this.recover();
    for (const event of this.wakeEvents) this.bus.on(event, this.onBus);
    this.passes.start(recovered);
    return this;
  }

  /** Records the rows a crash left mid-send; logs, never throws. */
  private recover(): Promise<void> {
    const noun = this.sentNoun;
    const fate = this.interruptedFate;
    return this.recoverInterrupted(this.now()).then(
      (interrupted) => {
        if (interrupted > 0) this.logger.warn({ interrupted }, `${noun} interrupted by a crash mid-send ${fate}`);
      },
      (err: unknown) => this.logger.error({ err }, `recording interrupted ${noun} failed`),
    );
  }

  /** Stops taking work and waits for the sends in flight. */
  async stop(): Promise<void> {
    if (!this.passes.running) return;
    for (const event of this.wakeEvents) this.bus.off(event, this.onBus);
    await this.passes.stop();
    this.stopped();
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

  /** Called once the sends in flight have ended after stop() (closing a connection, say). */
  protected stopped(): void {}

  protected now(): number {
    return this.options.clock.now();
  }

  /** One pass: what the subclass enqueues, then a prune at most once an interval. */
  private async pass(now: number, room: number, enqueue: Enqueue): Promise<void> {
    await this.enqueueDue(now, room, enqueue);
    if (now - this.lastPrune >= PRUNE_INTERVAL_MS) {
      this.lastPrune = now;
      if (this.options.recoverEachPrune) await this.recover();
      await this.prune(now - this.options.retentionMs, now - this.options.floodWindowMs);
    }
  }
}
