import { randomUUID } from 'node:crypto';
import { ChangeBus } from '../../domain/changes.js';
import { TOPICS, type PgNotifyBus } from './notify-bus.js';

/** PostgreSQL refuses a notification payload of 8000 bytes or more; a change this big is only delivered on its own node. */
const MAX_PAYLOAD_BYTES = 7_000;

/**
 * The in-process wake-up bus (src/domain/changes.ts) of a node in a cluster: what a write emits
 * here is also heard by the other nodes, through PostgreSQL LISTEN/NOTIFY (src/db/pg/notify-bus.ts).
 *
 * - `alert-events`: the change log's appends publish it in their own transaction (at COMMIT); every
 *   node's live streams read the log when they hear it, and when the bus resumes after a gap.
 * - `read-state` and `notifications`: emitted here for this node at once, and published for the
 *   others (the payload names this node, which skips its own notification).
 *
 * - `heartbeat-due`: a ping set a check's due time soon (src/services/heartbeats.ts): published for
 *   the other nodes, so the leader's timer wakes for it whichever node was pinged.
 *
 * Everything else (`push-deliveries`) stays on the node: the other nodes' workers poll. A missed
 * notification only delays, never loses: the rows are the truth, and the live streams and workers poll.
 */
export class ClusterChangeBus extends ChangeBus {
  readonly #node = randomUUID();
  #notify: PgNotifyBus | null = null;
  #unsubscribe: (() => void)[] = [];
  /** A `notifications` publish is in flight; `#wakeAgain`: another emit came meanwhile. */
  #waking = false;
  #wakeAgain = false;

  /** Starts hearing the other nodes (subscribe before the notify bus starts, to hear from its first connection). */
  attach(notify: PgNotifyBus): void {
    this.#notify = notify;
    const local = (event: string, ...args: unknown[]) => void super.emit(event, ...args);
    this.#unsubscribe = [
      notify.subscribe(TOPICS.alertEvents, { message: () => local('alert-events'), resumed: () => local('alert-events') }),
      notify.subscribe(TOPICS.notifications, {
        message: (from) => {
          if (from !== this.#node) local('notifications');
        },
        resumed: () => local('notifications'),
      }),
      notify.subscribe(TOPICS.heartbeatDue, {
        message: (payload) => {
          const due = parseDue(payload);
          if (due && due.from !== this.#node) local('heartbeat-due', due.at);
        },
      }),
      notify.subscribe(TOPICS.readState, {
        message: (payload) => {
          const change = parse(payload);
          if (change && change.from !== this.#node) local('read-state', { userId: change.userId, channelIds: change.channelIds });
        },
      }),
    ];
  }

  /** Stops hearing the other nodes (shutdown). */
  detach(): void {
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
    this.#notify = null;
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    const heard = super.emit(event, ...args);
    const notify = this.#notify;
    if (notify && event === 'notifications') this.#wakeWorkers(notify);
    if (notify && event === 'read-state') {
      const change = args[0] as { userId: string; channelIds: string[] };
      const payload = JSON.stringify({ from: this.#node, userId: change.userId, channelIds: change.channelIds });
      // Too big to send (hundreds of channels at once): only this node's streams of the user get `read.updated`.
      if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) notify.publish(TOPICS.readState, payload).catch(() => {});
    }
    if (notify && event === 'heartbeat-due') notify.publish(TOPICS.heartbeatDue, JSON.stringify({ from: this.#node, at: args[0] })).catch(noop);
    return heard;
  }

  /**
   * The other nodes' outbox workers are woken with one publish at a time: emits that come while one
   * is in flight (every accepted webhook emits one) are folded into a single publish sent after it.
   * That one leaves after their commits, so no wake-up is lost, and a burst of a thousand alerts
   * costs a few round trips instead of a thousand.
   */
  #wakeWorkers(notify: PgNotifyBus): void {
    if (this.#waking) {
      this.#wakeAgain = true;
      return;
    }
    this.#waking = true;
    void notify
      .publish(TOPICS.notifications, this.#node)
      .catch(noop)
      .finally(() => {
        this.#waking = false;
        if (this.#wakeAgain && this.#notify) {
          this.#wakeAgain = false;
          this.#wakeWorkers(this.#notify);
        }
      });
  }
}

/** Module-private, so the class keeps one public surface. */
function noop(): void {}

function parse(payload: string): { from: string; userId: string; channelIds: string[] } | null {
  try {
    const v = JSON.parse(payload) as { from?: unknown; userId?: unknown; channelIds?: unknown };
    if (typeof v.from !== 'string' || typeof v.userId !== 'string' || !Array.isArray(v.channelIds)) return null;
    return { from: v.from, userId: v.userId, channelIds: v.channelIds.filter((c): c is string => typeof c === 'string') };
  } catch {
    return null;
  }
}

function parseDue(payload: string): { from: string; at: number } | null {
  try {
    const v = JSON.parse(payload) as { from?: unknown; at?: unknown };
    return typeof v.from === 'string' && typeof v.at === 'number' && Number.isFinite(v.at) ? { from: v.from, at: v.at } : null;
  } catch {
    return null;
  }
}
