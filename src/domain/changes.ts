import { EventEmitter } from 'node:events';

/**
 * In-process wake-ups, emitted only AFTER the writing transaction committed:
 * `alert-events` for the live stream, `notifications` for the delivery worker.
 * The rows themselves (the alert store's change log and outbox) are the source
 * of truth; a missed wake-up only delays.
 */
export class ChangeBus extends EventEmitter {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}

export type { AlertEventType, NotificationKind } from './alert-store.js';
