import type { AlertRow } from '../alert-rows.js';

/**
 * What an escalation step's notification job carries through the outbox (e-mail and push): which
 * step it is, and for the final step the people it goes to. Absent or null on every other job.
 */
export interface EscalationMark {
  escalationStep?: number | null;
  escalationSteps?: number | null;
  escalationToJson?: string | null;
}

/** "Escalation 2 of 3", or null for a job that is no escalation step. */
export function escalationLabel(m: EscalationMark): string | null {
  return m.escalationStep ? `Escalation ${m.escalationStep} of ${m.escalationSteps ?? m.escalationStep}` : null;
}

/**
 * The final step's people (user ids), or null when the step goes to the channel's recipients. They
 * were named for this (or are its owners and admins), so their level for the channel does not hold
 * them back; whether they can see the channel still does.
 */
export function escalationAudience(m: EscalationMark): string[] | null {
  return m.escalationToJson ? (JSON.parse(m.escalationToJson) as string[]) : null;
}

/** A step is sent only while the alert still needs it: acknowledged, resolved or snoozed meanwhile, it is dropped. */
export function escalationStale(alert: Pick<AlertRow, 'status' | 'snoozedUntil'>, now: number): string | null {
  if (alert.status !== 'open') return `alert ${alert.status} before the escalation was sent`;
  if (alert.snoozedUntil !== null && Number(alert.snoozedUntil) > now) return 'alert snoozed before the escalation was sent';
  return null;
}
