import type { EscalationPolicyRows } from './escalations.js';
import type { EscalationDecision, EscalationPolicy, EscalationSend, EscalationState, EscalationSubject } from './escalation-steps.js';

/** Decides one alert's escalation from what its transaction read (`decideEscalation`, with `now` bound). */
export type EscalationDecide = (alert: EscalationSubject | undefined, policy: EscalationPolicy | undefined, current: EscalationState | undefined) => EscalationDecision;

/** The escalation tables as the scheduler uses them (src/db/shared/escalation-rows.ts). */
export interface EscalationRows extends EscalationPolicyRows {
  /**
   * Alerts of channels with a policy that changed after the change-log cursor (at most `limit`
   * log entries), and the id the cursor moves to once they are looked at; null when nothing is new
   * or no policy was ever set.
   */
  changedSince(limit: number): Promise<{ alertIds: string[]; upTo: number } | null>;
  moveCursor(upTo: number): Promise<void>;
  /** Alerts whose escalation is due at `now`, earliest first. */
  dueAlerts(now: number, limit: number): Promise<string[]>;
  nextDue(): Promise<number | null>;
  /**
   * One transaction: the alert (locked on PostgreSQL, so an acknowledgement is before or after,
   * never during), its policy and its escalation row are read, `decide` says what to do, and the
   * row and a step's notification job are written together. The step sent, if any.
   */
  evaluate(alertId: string, decide: EscalationDecide, now: number): Promise<EscalationSend | null>;
}
