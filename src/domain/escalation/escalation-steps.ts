import type { AlertLevel } from '../alert-rows.js';
import type { AlertStatus } from '../alert-lifecycle.js';

/**
 * When each escalation step is due, and what one look at an alert decides (docs/handling-alerts.md,
 * "Escalation"). Pure: the rows module (src/db/shared/escalation-rows.ts) reads the alert, its policy
 * and its escalation row in one transaction, asks `decideEscalation`, and writes what it says there.
 */

export const LEVEL_RANK: Record<AlertLevel, number> = { INFO: 0, SUCCESS: 1, WARNING: 2, ERROR: 3 };

/** A channel's escalation policy. `then`: user ids for the last step; null means the workspace's owners and admins. */
export interface EscalationPolicy {
  channelId: string;
  minLevel: AlertLevel;
  afterMs: number;
  everyMs: number;
  times: number;
  then: string[] | null;
  updatedBy: string | null;
  updatedAt: number;
}

/** An alert as escalation sees it. `reopenedAt`: its latest `reopened` or `unsnoozed` history row, if any. */
export interface EscalationSubject {
  channelId: string;
  level: AlertLevel;
  status: AlertStatus;
  snoozedUntil: number | null;
  silencedBy: string | null;
  createdAt: number;
  reopenedAt: number | null;
}

/** Where an alert stands: its open spell began at `armedAt`, `step` steps were sent, look again at `dueAt`. */
export interface EscalationState {
  armedAt: number;
  step: number;
  dueAt: number | null;
}

/** One step to notify: "Escalation `step` of `steps`"; `final` is the step for the `then` people. */
export interface EscalationSend {
  step: number;
  steps: number;
  final: boolean;
}

export type EscalationDecision = { drop: true } | { drop: false; state: EscalationState; send: EscalationSend | null };

/** The channel steps (`times`) and the final one. */
export const stepsOf = (p: Pick<EscalationPolicy, 'times'>) => p.times + 1;

/** When step `n` (1-based) of a spell armed at `armedAt` is due. */
export const dueAtOf = (p: Pick<EscalationPolicy, 'afterMs' | 'everyMs'>, armedAt: number, n: number) => armedAt + p.afterMs + (n - 1) * p.everyMs;

/**
 * When the alert's current open spell began: created, reopened, unsnoozed, or the end of a snooze
 * that ran out. A new spell starts the steps again ("a snooze that ends re-arms it").
 */
export function openSince(a: EscalationSubject, now: number): number {
  const snoozeEnded = a.snoozedUntil !== null && a.snoozedUntil <= now ? a.snoozedUntil : 0;
  return Math.max(a.createdAt, a.reopenedAt ?? 0, snoozeEnded);
}

/** The latest step due at `now` (0: none yet), at most the last. */
function latestDue(p: EscalationPolicy, armedAt: number, now: number): number {
  const first = dueAtOf(p, armedAt, 1);
  if (now < first) return 0;
  return Math.min(stepsOf(p), Math.floor((now - first) / p.everyMs) + 1);
}

/**
 * One look at an alert. Dropped (its row deleted) unless it is open, unsilenced, at or above the
 * policy's level; kept, waiting for the snooze's end, while snoozed. Otherwise the latest step that
 * is due and not yet sent is sent: after a long stop the steps missed meanwhile are not sent in a
 * burst, only the latest (each step is still sent at most once).
 */
export function decideEscalation(
  alert: EscalationSubject | undefined,
  policy: EscalationPolicy | undefined,
  current: EscalationState | undefined,
  now: number,
): EscalationDecision {
  if (!alert || !policy || alert.status !== 'open' || alert.silencedBy !== null) return { drop: true };
  if (LEVEL_RANK[alert.level] < LEVEL_RANK[policy.minLevel]) return { drop: true };
  if (alert.snoozedUntil !== null && alert.snoozedUntil > now) {
    return { drop: false, state: { armedAt: current?.armedAt ?? alert.createdAt, step: current?.step ?? 0, dueAt: alert.snoozedUntil }, send: null };
  }
  const armedAt = openSince(alert, now);
  const sent = current && current.armedAt === armedAt ? current.step : 0;
  const due = latestDue(policy, armedAt, now);
  const steps = stepsOf(policy);
  const step = Math.max(sent, due);
  const send = due > sent ? { step: due, steps, final: due === steps } : null;
  return { drop: false, state: { armedAt, step, dueAt: step < steps ? dueAtOf(policy, armedAt, step + 1) : null }, send };
}
