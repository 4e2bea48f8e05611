import { downAt, type CheckTiming, type StoredStatus } from './schedule.js';

/** What a ping URL asks: its suffix (`/start`, `/fail`, `/log`, `/{exit-status}`, or none for success). */
export type PingAction = { kind: 'success' } | { kind: 'fail'; exitStatus?: number } | { kind: 'start' } | { kind: 'log' } | { kind: 'exit'; exitStatus: number };
export type PingKind = 'success' | 'fail' | 'start' | 'log';

/** The stored part of a check a ping changes. */
export interface CheckState extends CheckTiming {
  lastStartRid: string | null;
  lastDurationMs: number | null;
}

export interface PingOutcome {
  state: CheckState;
  downAt: number | null;
  kind: PingKind;
  exitStatus: number | null;
  /** The run's duration when this end paired with a start. */
  durationMs: number | null;
  /** The stored status before, to tell a transition. */
  was: StoredStatus;
}

/** Reads a ping URL's suffix: '' success, start, fail, log, or 0–255. Anything else is not a ping URL (undefined). */
export function parseSuffix(suffix: string | undefined): PingAction | undefined {
  if (suffix === undefined || suffix === '') return { kind: 'success' };
  if (suffix === 'start' || suffix === 'fail' || suffix === 'log') return { kind: suffix };
  if (/^[0-9]{1,3}$/.test(suffix) && Number(suffix) <= 255) return { kind: 'exit', exitStatus: Number(suffix) };
  return undefined;
}

/**
 * Healthchecks' Check.ping, as a pure step. A start records when the run began (and its rid); a
 * success or failure ends it: with the start's rid (or both without one) the run's duration is
 * measured; a failure, or a success with no rid, ends a run whatever its rid. A ping to a paused
 * check resumes it, as Healthchecks' does unless "manual resume" is set. A log changes nothing.
 */
export function applyPing(c: CheckState, action: PingAction, rid: string | null, now: number): PingOutcome {
  const kind: PingKind = action.kind === 'exit' ? (action.exitStatus === 0 ? 'success' : 'fail') : action.kind;
  const exitStatus = action.kind === 'exit' ? action.exitStatus : null;
  const was = c.status;
  const next: CheckState = { ...c };
  let durationMs: number | null = null;
  if (kind === 'start') {
    next.lastStartAt = now;
    next.lastStartRid = rid;
    if (next.status === 'paused') next.status = next.lastPingAt === null ? 'new' : 'up';
  } else if (kind === 'success' || kind === 'fail') {
    next.lastPingAt = now;
    next.lastDurationMs = null;
    if (c.lastStartAt !== null) {
      if (c.lastStartRid === rid) {
        durationMs = now - c.lastStartAt;
        next.lastDurationMs = durationMs;
        next.lastStartAt = null;
        next.lastStartRid = null;
      } else if (kind === 'fail' || rid === null) {
        next.lastStartAt = null;
        next.lastStartRid = null;
      }
    }
    next.status = kind === 'fail' ? 'down' : 'up';
  }
  return { state: next, downAt: downAt(next), kind, exitStatus, durationMs, was };
}
