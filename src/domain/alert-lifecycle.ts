import { AppError, type ValidationIssue } from './errors.js';

/**
 * An alert's lifecycle, shared by the workspace (issue 26; docs/handling-alerts.md): open →
 * acknowledged → resolved, and back to open. The rules are pure functions here; the stores apply
 * what they decide inside the same unit as the write that caused it (src/db/shared/alert-lifecycle-steps.ts).
 */

export type AlertStatus = 'open' | 'acknowledged' | 'resolved';
export const ALERT_STATUSES: readonly AlertStatus[] = ['open', 'acknowledged', 'resolved'];

/** Where a change came from, as the history shows it. */
export type LifecycleVia = 'api' | 'dashboard' | 'email' | 'push' | 'cli' | 'webhook' | 'integration';
export type LifecycleAction = 'acknowledged' | 'resolved' | 'reopened' | 'snoozed' | 'unsnoozed';

/** Who acted: a person (`id` their user id) or a sender or integration (`id` null, `name` the source). */
export interface LifecycleActor {
  id: string | null;
  name: string;
}

/** The lifecycle columns of an alert row. */
export interface LifecycleState {
  status: AlertStatus;
  acknowledgedAt: number | null;
  acknowledgedByJson: string | null;
  resolvedAt: number | null;
  resolvedByJson: string | null;
  snoozedUntil: number | null;
  occurrences: number;
}

/** One history row. */
export interface HistoryEntry {
  action: LifecycleAction;
  actorId: string | null;
  actorName: string;
  via: LifecycleVia;
  snoozedUntil: number | null;
}

/** A change decided from the stored state: the new columns and what the history records. */
export interface LifecycleChange {
  next: LifecycleState;
  history: HistoryEntry[];
}

/** A stored history row, as the alert shows it. */
export interface HistoryRow extends HistoryEntry {
  id: number;
  alertId: string;
  channelId: string;
  createdAt: number;
}

/** What a person asks for (PATCH, dashboard, CLI, e-mail, push); either member may be absent. */
export interface LifecycleRequest {
  status?: AlertStatus;
  /** Epoch ms in the future, or null to end a snooze. */
  snoozedUntil?: number | null;
}

/** Longest snooze accepted: beyond a month a snooze is a silence (or a resolve). */
export const MAX_SNOOZE_MS = 30 * 24 * 3600 * 1000;

const actorJson = (a: LifecycleActor) => JSON.stringify({ id: a.id, name: a.name });

function entry(action: LifecycleAction, actor: LifecycleActor, via: LifecycleVia, snoozedUntil: number | null = null): HistoryEntry {
  return { action, actorId: actor.id, actorName: actor.name, via, snoozedUntil };
}

/** The state after moving to `status` (no history); unchanged when already there. */
function moveTo(current: LifecycleState, status: AlertStatus, actor: LifecycleActor, now: number): LifecycleState {
  if (status === 'open') {
    return { ...current, status, acknowledgedAt: null, acknowledgedByJson: null, resolvedAt: null, resolvedByJson: null, snoozedUntil: null };
  }
  if (status === 'acknowledged') return { ...current, status, acknowledgedAt: now, acknowledgedByJson: actorJson(actor), resolvedAt: null, resolvedByJson: null };
  // A resolved alert needs no snooze: nothing will remind anyone of it.
  return { ...current, status, resolvedAt: now, resolvedByJson: actorJson(actor), snoozedUntil: null };
}

const ACTION_OF: Record<AlertStatus, LifecycleAction> = { open: 'reopened', acknowledged: 'acknowledged', resolved: 'resolved' };

function invalid(path: string, message: string): AppError {
  const issue: ValidationIssue = { code: 'custom', message, path: [path] };
  return new AppError('invalid-body', message, { details: [issue] });
}

/**
 * A person's request against the stored state. Asking for the status the alert already has changes
 * nothing (no history row), so a retried request or two people pressing at once record one change.
 * Throws a 400 for a snooze that is past, too long, or on an alert that is (or becomes) resolved.
 */
export function personChange(current: LifecycleState, request: LifecycleRequest, actor: LifecycleActor, via: LifecycleVia, now: number): LifecycleChange | null {
  let next = current;
  const history: HistoryEntry[] = [];
  if (request.status !== undefined && request.status !== current.status) {
    next = moveTo(current, request.status, actor, now);
    history.push(entry(ACTION_OF[request.status], actor, via));
  }
  if (request.snoozedUntil !== undefined) {
    const until = request.snoozedUntil;
    if (until === null) {
      if (next.snoozedUntil !== null && next.snoozedUntil > now) history.push(entry('unsnoozed', actor, via));
      next = { ...next, snoozedUntil: null };
    } else {
      if (until <= now) throw invalid('snoozedUntil', 'snoozedUntil must be in the future');
      if (until - now > MAX_SNOOZE_MS) throw invalid('snoozedUntil', 'snoozedUntil must be at most 30 days ahead');
      if (next.status === 'resolved') throw invalid('snoozedUntil', 'a resolved alert cannot be snoozed; reopen it first');
      next = { ...next, snoozedUntil: until };
      history.push(entry('snoozed', actor, via, until));
    }
  }
  return history.length === 0 && next.snoozedUntil === current.snoozedUntil ? null : { next, history };
}

/**
 * A sender or an integration moving its alert: `resolved` (a resolve, a group resolved, a run passed)
 * or `open` (firing again, the key posted again). A source's resolve of an alert a person already
 * resolved changes nothing; its reopen only reopens a resolved alert (an acknowledged one stays so).
 * `countOccurrence`: the source reported the problem once more (occurrences + 1).
 */
export function sourceChange(current: LifecycleState, to: 'open' | 'resolved' | null, actor: LifecycleActor, via: LifecycleVia, now: number, countOccurrence: boolean): LifecycleChange | null {
  let next = countOccurrence ? { ...current, occurrences: current.occurrences + 1 } : current;
  const history: HistoryEntry[] = [];
  if (to === 'resolved' && current.status !== 'resolved') {
    next = moveTo(next, 'resolved', actor, now);
    history.push(entry('resolved', actor, via));
  } else if (to === 'open' && current.status === 'resolved') {
    next = moveTo(next, 'open', actor, now);
    history.push(entry('reopened', actor, via));
  }
  return next === current ? null : { next, history };
}

/** What a source's write asks of the lifecycle, carried by the store's update plans. */
export interface SourceTransition {
  to: 'open' | 'resolved' | null;
  actor: LifecycleActor;
  via: LifecycleVia;
  countOccurrence: boolean;
}

/** The lifecycle change a source transition makes, as the stores apply it. */
export const decideSource = (t: SourceTransition, now: number) => (current: LifecycleState) => sourceChange(current, t.to, t.actor, t.via, now, t.countOccurrence);

/** The lifecycle of a new alert (the columns' defaults). */
export const NEW_LIFECYCLE: LifecycleState = {
  status: 'open',
  acknowledgedAt: null,
  acknowledgedByJson: null,
  resolvedAt: null,
  resolvedByJson: null,
  snoozedUntil: null,
  occurrences: 1,
};

/** Parses a comma-separated status filter (`open,acknowledged`); throws a 400 naming the query parameter. */
export function parseStatusFilter(raw: string, parameter = 'status'): AlertStatus[] {
  const parts = raw.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  const bad = parts.find((s) => !ALERT_STATUSES.includes(s as AlertStatus));
  if (parts.length === 0 || bad !== undefined) {
    const message = `${parameter} must be a comma-separated list of open, acknowledged, resolved`;
    const issue: ValidationIssue = { code: 'invalid_value', message, path: [parameter] };
    throw new AppError('invalid-query', message, { details: [issue] });
  }
  return [...new Set(parts as AlertStatus[])];
}
