import type { Clock } from '../lib/clock.js';
import type { AlertLevel } from './alert-rows.js';
import { AppError } from './errors.js';

/**
 * Quiet hours per person (docs/notifications.md#quiet-hours): a daily window in their time zone
 * inside which only alerts at or above their level notify them; the rest are held for one digest
 * e-mail when the window ends. `quietHoursAllow` is the one rule: the outbox fan-out calls it, and
 * so may any other path that notifies a person (escalation re-notifications).
 */
export interface QuietHours {
  timeZone: string;
  /** Minutes after local midnight; start > end is a window that crosses midnight. */
  startMinute: number;
  endMinute: number;
  minLevel: QuietMinLevel;
}

export const QUIET_MIN_LEVELS = ['INFO', 'WARNING', 'ERROR'] as const;
export type QuietMinLevel = (typeof QUIET_MIN_LEVELS)[number];
export const DEFAULT_QUIET_MIN_LEVEL: QuietMinLevel = 'ERROR';

const RANK: Record<AlertLevel, number> = { SUCCESS: 0, INFO: 1, WARNING: 2, ERROR: 3 };

/** Notify now, or hold for the digest due `until` (the end of the window `now` is in). */
export type QuietDecision = { allow: true } | { allow: false; until: number };

/**
 * Whether a person with these quiet hours is told now about an alert of `level` (null: no quiet
 * hours). Local time as Intl gives it, DST included: a window's end on a night the clocks change is
 * that wall-clock time on the new offset.
 */
export function quietHoursAllow(quiet: QuietHours | null, level: AlertLevel, now: number): QuietDecision {
  if (!quiet || RANK[level] >= RANK[quiet.minLevel]) return { allow: true };
  const local = localParts(now, quiet.timeZone);
  const minute = local.hour * 60 + local.minute;
  const { startMinute: start, endMinute: end } = quiet;
  const inside = start < end ? minute >= start && minute < end : minute >= start || minute < end;
  if (!inside) return { allow: true };
  // The window ends today (local) when we are before its end, else tomorrow (a window crossing midnight, evening side).
  const dayOffset = minute < end ? 0 : 1;
  let until = zonedInstant(local.year, local.month, local.day + dayOffset, Math.floor(end / 60), end % 60, quiet.timeZone);
  // A DST jump can move a computed wall time behind us: the end is always ahead.
  if (until <= now) until = now + 60_000;
  return { allow: false, until };
}

/** The stored columns as quiet hours, or null when the person has none. */
export function quietHoursOf(row: { quietZone?: string | null; quietStart?: number | null; quietEnd?: number | null; quietMinLevel?: string | null }): QuietHours | null {
  if (!row.quietZone || row.quietStart == null || row.quietEnd == null || !row.quietMinLevel) return null;
  return { timeZone: row.quietZone, startMinute: Number(row.quietStart), endMinute: Number(row.quietEnd), minLevel: row.quietMinLevel as QuietMinLevel };
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, f);
  }
  return f;
}

function localParts(at: number, timeZone: string): LocalParts & { second: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(at)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(at: number, timeZone: string): number {
  const p = localParts(at, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at / 1000) * 1000;
}

/** The instant a wall-clock time happens in the zone (day may overflow the month: Date.UTC normalises it). */
export function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const first = wall - offsetAt(wall, timeZone);
  return wall - offsetAt(first, timeZone);
}

/** `HH:MM` in the zone, for pages and e-mails. */
export function localTime(at: number, timeZone: string): string {
  const p = localParts(at, timeZone);
  return `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;
}

export const formatMinute = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** `22:00-07:00` as shown and accepted. */
export const formatWindow = (q: Pick<QuietHours, 'startMinute' | 'endMinute'>) => `${formatMinute(q.startMinute)}-${formatMinute(q.endMinute)}`;

/** Which input a bad value came from, so a form shows the error next to its field. */
export type QuietField = 'start' | 'end' | 'timeZone' | 'minLevel';

/** The field a parseQuietHours error names (its `details[0].path`), for the form. */
export function quietFieldOf(err: AppError): QuietField | undefined {
  const details = err.extensions.details as { path?: unknown[] }[] | undefined;
  return details?.[0]?.path?.[0] as QuietField | undefined;
}

function invalid(field: QuietField, message: string): AppError {
  return new AppError('invalid-body', message, { details: [{ code: 'invalid_value', message, path: [field] }] });
}

function parseMinute(field: QuietField, value: string): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(value.trim());
  const minutes = m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) throw invalid(field, `${field === 'start' ? 'start' : 'end'} must be a time HH:MM (00:00 to 23:59)`);
  return minutes;
}

export function isTimeZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Checks raw input (the dashboard form, the CLI) and returns the quiet hours it describes. */
export function parseQuietHours(input: { start: string; end: string; timeZone: string; minLevel?: string }): QuietHours {
  const startMinute = parseMinute('start', input.start);
  const endMinute = parseMinute('end', input.end);
  if (startMinute === endMinute) throw invalid('end', 'end must differ from start (an empty or all-day window)');
  const timeZone = input.timeZone.trim();
  if (!isTimeZone(timeZone)) throw invalid('timeZone', 'time zone must be an IANA name such as Europe/Berlin or UTC');
  const level = (input.minLevel?.trim() || DEFAULT_QUIET_MIN_LEVEL).toUpperCase();
  if (!(QUIET_MIN_LEVELS as readonly string[]).includes(level)) throw invalid('minLevel', `level must be one of ${QUIET_MIN_LEVELS.map((l) => l.toLowerCase()).join(', ')}`);
  return { timeZone, startMinute, endMinute, minLevel: level as QuietMinLevel };
}

/** `22:00-07:00` → its two ends. */
export function parseWindow(value: string): { start: string; end: string } {
  const [start = '', end = '', ...rest] = value.split('-');
  if (rest.length > 0 || !end) throw invalid('start', 'window must be HH:MM-HH:MM, such as 22:00-07:00');
  return { start, end };
}

/** Where quiet hours are stored (src/db/shared/quiet-hours-rows.ts, both engines). */
export interface QuietHoursRows {
  get(userId: string): Promise<QuietHours | undefined>;
  set(userId: string, quiet: QuietHours, now: number): Promise<void>;
  clear(userId: string): Promise<void>;
}

/** Quiet hours as a person (dashboard) or an operator (CLI) sets them. */
export class QuietHoursSettings {
  constructor(
    private readonly rows: QuietHoursRows,
    private readonly clock: Clock,
  ) {}

  async get(userId: string): Promise<QuietHours | null> {
    return (await this.rows.get(userId)) ?? null;
  }

  async set(userId: string, input: { start: string; end: string; timeZone: string; minLevel?: string }): Promise<QuietHours> {
    const quiet = parseQuietHours(input);
    await this.rows.set(userId, quiet, this.clock.now());
    return quiet;
  }

  clear(userId: string): Promise<void> {
    return this.rows.clear(userId);
  }
}

/** The JSON shape the CLI prints (and tests read). */
export function quietHoursJson(q: QuietHours | null) {
  return q ? { window: formatWindow(q), timeZone: q.timeZone, minLevel: q.minLevel.toLowerCase() } : null;
}
