import { Cron } from 'croner';
import { AppError } from '../errors.js';
import { parseDuration } from '../../lib/duration.js';

/** A check's schedule: every `periodMs`, or at each time of a cron line read in `timeZone` (croner handles DST). */
export type Schedule = { kind: 'period'; periodMs: number } | { kind: 'cron'; cron: string; timeZone: string };

/** The stored state; "late" is never stored, it is read from the clock (checkStatus). */
export type StoredStatus = 'new' | 'up' | 'down' | 'paused';
export type CheckStatus = StoredStatus | 'late';

/** What the state rules read from a check. */
export interface CheckTiming {
  schedule: Schedule;
  graceMs: number;
  status: StoredStatus;
  lastPingAt: number | null;
  lastStartAt: number | null;
}

const MAX_DURATION_MS = 366 * 86_400_000;

/** A duration from the CLI or a form (`30s` … `1d`, at least a second, at most a year), or a 400 naming the flag. */
export function durationMs(text: string, what: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms > MAX_DURATION_MS) throw new AppError('invalid-body', `${what} must be a duration such as 30s, 5m, 1h or 1d (at most a year)`);
  return ms;
}

/** A cron line and a zone checked now, so a stored schedule always parses. */
export function cronSchedule(cron: string, timeZone: string): Schedule {
  if (!isTimeZone(timeZone)) throw new AppError('invalid-body', `unknown time zone ${timeZone}`);
  try {
    if (cron.trim().split(/\s+/).length !== 5) throw new Error('five fields');
    new Cron(cron, { timezone: timeZone, paused: true });
  } catch {
    throw new AppError('invalid-body', `cron must be five fields (minute hour day month weekday), such as "0 3 * * *"`);
  }
  return { kind: 'cron', cron: cron.trim(), timeZone };
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

/** When the ping after one at `after` is expected, or null when the schedule has no later time. */
export function nextExpected(schedule: Schedule, after: number): number | null {
  if (schedule.kind === 'period') return after + schedule.periodMs;
  const next = new Cron(schedule.cron, { timezone: schedule.timeZone, paused: true }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/**
 * When the grace period starts (Healthchecks' get_grace_start): the next expected ping of an up
 * check, or a running job's start if earlier, since a start with no end past the grace is down.
 */
function graceStart(c: CheckTiming): number | null {
  let start: number | null = null;
  if (c.status === 'up' && c.lastPingAt !== null) start = nextExpected(c.schedule, c.lastPingAt);
  if (c.lastStartAt !== null && (c.status === 'up' || c.status === 'new')) start = start === null ? c.lastStartAt : Math.min(start, c.lastStartAt);
  return start;
}

/** The instant the check goes down unless pinged first (null: nothing is due: new, paused or already down). */
export function downAt(c: CheckTiming): number | null {
  const start = graceStart(c);
  return start === null ? null : start + c.graceMs;
}

/** When the next ping is expected (the "next due" column), or null. */
export function nextDueAt(c: CheckTiming): number | null {
  return c.status === 'up' && c.lastPingAt !== null ? nextExpected(c.schedule, c.lastPingAt) : null;
}

/** The status as shown at `now`: the stored one, or late within the grace, or down past it before the timer wrote it. */
export function checkStatus(c: CheckTiming, now: number): CheckStatus {
  if (c.status === 'paused' || c.status === 'down') return c.status;
  const down = downAt(c);
  if (down !== null && now >= down) return 'down';
  const due = nextDueAt(c);
  if (due !== null && now >= due) return 'late';
  return c.status;
}
