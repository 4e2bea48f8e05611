import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { EscalationRows } from './escalation-rows.js';
import { decideEscalation } from './escalation-steps.js';

/** Change-log entries and due alerts looked at per batch; a full batch asks for another at once. */
export const ESCALATION_BATCH = 200;

/**
 * One pass of escalation, run by the leader (src/notify/escalation-scheduler.ts): first every alert
 * of an escalating channel that changed since the cursor (created, updated, acknowledged, snoozed,
 * reopened) is looked at, which arms, re-arms or drops it; then every alert whose next step is due.
 * Each look is one transaction that writes the step's job with the step, so a step happens once
 * whichever node runs the pass and however often it is repeated.
 */
export class EscalationPass {
  constructor(
    private readonly rows: EscalationRows,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  /** Steps sent, and whether a batch was full (more to do now). */
  async run(): Promise<{ sent: number; more: boolean }> {
    let sent = 0;
    const changed = await this.rows.changedSince(ESCALATION_BATCH);
    if (changed) {
      for (const id of changed.alertIds) sent += (await this.look(id)) ? 1 : 0;
      await this.rows.moveCursor(changed.upTo);
    }
    const due = await this.rows.dueAlerts(this.clock.now(), ESCALATION_BATCH);
    for (const id of due) sent += (await this.look(id)) ? 1 : 0;
    return { sent, more: due.length === ESCALATION_BATCH || changed !== null };
  }

  nextDue(): Promise<number | null> {
    return this.rows.nextDue();
  }

  /** One alert; a failure is logged and the pass goes on, so one bad row cannot hold every other escalation back. */
  private async look(alertId: string): Promise<boolean> {
    const now = this.clock.now();
    try {
      return (await this.rows.evaluate(alertId, (alert, policy, current) => decideEscalation(alert, policy, current, now), now)) !== null;
    } catch (err) {
      this.logger.error({ err, alertId }, 'escalation: looking at an alert failed; tried again at its next due time');
      return false;
    }
  }
}
