import type { AlertReads, AlertRemoval } from './alert-store.js';
import type { ChangeBus } from './changes.js';
import type { Clock } from '../lib/clock.js';
import { notFound } from './errors.js';
import type { Principal } from './tokens.js';

export interface AlertDeletionDeps {
  reads: Pick<AlertReads, 'visibleAlert'>;
  removal: AlertRemoval;
  clock: Clock;
  bus: ChangeBus;
  /** Deletes media files no alert references any more (after COMMIT). */
  releaseMedia: (keys: string[]) => void;
}

/**
 * Deleting one alert (a leaked secret in a message, say). The caller decides
 * who may: the dashboard allows workspace owners and admins, the admin CLI is
 * the operator. With a principal, an alert the user cannot see is "not
 * found", exactly as in the read API. Open streams get `alert.deleted`.
 */
export class AlertDeletion {
  constructor(private readonly deps: AlertDeletionDeps) {}

  async deleteAlert(alertId: string, as?: Principal): Promise<{ id: string; channelId: string; deleted: true; filesReleased: number }> {
    if (as && !(await this.deps.reads.visibleAlert(as, alertId))) throw notFound('alert');
    const done = await this.deps.removal.deleteAlert(alertId, this.deps.clock.now());
    if (!done) throw notFound('alert');
    this.deps.bus.emit('alert-events');
    this.deps.releaseMedia(done.released);
    return { id: alertId, channelId: done.channelId, deleted: true, filesReleased: done.released.length };
  }
}

/** The use case over the shared services (the dashboard and the CLI build it alike). */
export function alertDeletion(s: { store: { reads: AlertReads; removal: AlertRemoval }; clock: Clock; bus: ChangeBus; releaseMedia: (keys: string[]) => void }): AlertDeletion {
  return new AlertDeletion({ reads: s.store.reads, removal: s.store.removal, clock: s.clock, bus: s.bus, releaseMedia: (keys) => s.releaseMedia(keys) });
}
