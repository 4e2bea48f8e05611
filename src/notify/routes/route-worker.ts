import type { ChangeBus } from '../../domain/changes.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { DueRowWorker, dueRowWorkerDefaults, type DueRowWorkerOptions, type Enqueue } from '../due-row-worker.js';
import { PAUSE_AFTER_MS, ROUTE_RETRY, RouteSender, type RouteSenderDeps } from './route-sender.js';

export interface RouteWorkerOptions extends DueRowWorkerOptions {
  giveUpMs: number;
  pauseAfterMs: number;
}

export interface RouteWorkerDeps extends Omit<RouteSenderDeps, 'now' | 'random' | 'giveUpMs' | 'pauseAfterMs' | 'retry' | 'logger'> {
  /** The key id routes must be sealed under to be sent (null: no key, nothing is sent). */
  keyId: string | null;
  bus: ChangeBus;
  logger: Logger;
  clock: Clock;
}

/**
 * Sends route deliveries from the database (route_deliveries, written in each alert's write unit):
 * woken by every alert change on this node, a timer for the next retry and a slow poll for rows
 * another node wrote. Every state lives in the rows, so a restart loses nothing; a row cut off
 * mid-request is sent again once, with the same `webhook-id`.
 */
export class RouteWorker extends DueRowWorker<RouteWorkerOptions> {
  private readonly sender: RouteSender;

  constructor(
    private readonly deps: RouteWorkerDeps,
    options: Partial<RouteWorkerOptions> = {},
  ) {
    super({
      name: 'routes',
      options: { ...dueRowWorkerDefaults(deps.clock), retry: ROUTE_RETRY, concurrency: 8, giveUpMs: 24 * 3_600_000, pauseAfterMs: PAUSE_AFTER_MS, ...options },
      bus: deps.bus,
      wakeEvents: ['alert-events', 'notifications', 'routes'],
      logger: deps.logger,
      taskNoun: 'route delivery',
      sentNoun: 'route deliveries',
      interruptedFate: 'are sent again once, with the same webhook-id',
    });
    this.sender = new RouteSender({
      ...deps, logger: this.logger, now: () => this.now(), random: this.options.random,
      giveUpMs: this.options.giveUpMs, pauseAfterMs: this.options.pauseAfterMs, retry: this.options.retry,
    });
  }

  protected nextDue(): Promise<number | null> {
    return this.deps.keyId === null ? Promise.resolve(null) : this.deps.outbox.nextDue(this.deps.keyId);
  }

  protected async anythingDue(now: number): Promise<boolean> {
    return this.deps.keyId !== null && (await this.deps.outbox.due(now, 1, this.deps.keyId)).length > 0;
  }

  /** Unlike e-mail and push, an interrupted route request is sent again: receivers drop a repeat by its webhook-id. */
  protected recoverInterrupted(now: number): Promise<number> {
    return this.deps.outbox.recoverInterrupted(now);
  }

  protected prune(before: number): Promise<void> {
    return this.deps.outbox.prune(before);
  }

  protected async enqueueDue(now: number, room: number, enqueue: Enqueue): Promise<void> {
    if (room <= 0 || this.deps.keyId === null) return;
    for (const id of await this.deps.outbox.due(now, room + this.passes.inFlightCount, this.deps.keyId)) {
      enqueue(`route:${id}`, async () => {
        await this.sender.send(id);
      });
    }
  }
}
