import type { AlertSuppression } from './routes/alert-events.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import { canonicalTimeZone, formatClock, insideWindow, parseClock, WEEKDAYS, type LocalWindow } from '../lib/zoned-time.js';
import type { Accounts } from './accounts.js';
import type { AlertLevel, AlertRow } from './alert-rows.js';
import { AppError } from './errors.js';
import { PAYLOAD_LIMITS } from './webhook/payload-limits.js';

/**
 * Silences and maintenance windows, as Alertmanager's: matchers and a time when they hold. An alert
 * a silence matches is stored, counted and shown (with `silencedBy`), and nobody is notified: the
 * outbox's fan-out (src/notify/outbox/fan-out.ts) asks `isSilenced` before it writes a single
 * delivery, so e-mail, Web Push and whatever is decided there later inherit the rule.
 */

export const LEVELS: readonly AlertLevel[] = ['INFO', 'SUCCESS', 'WARNING', 'ERROR'];
export const SILENCE_LIMITS = { comment: 500, titleContains: 200, fields: 10, perWorkspace: 500 } as const;

export interface FieldMatcher {
  label: string;
  value: string;
}

/** When a silence holds: from `startsAt` to `endsAt`, or every week in `weekly` from `startsAt` on. */
export type SilenceSchedule = { endsAt: number; weekly: null } | { endsAt: null; weekly: LocalWindow };

export interface Silence {
  id: string;
  workspaceId: string;
  /** Null: every channel of the workspace. */
  channelId: string | null;
  level: AlertLevel | null;
  source: string | null;
  titleContains: string | null;
  fields: FieldMatcher[];
  startsAt: number;
  schedule: SilenceSchedule;
  comment: string;
  createdBy: string | null;
  createdAt: number;
  expiredAt: number | null;
}

/** The alert columns a silence matches on. */
export type SilenceSubject = Pick<AlertRow, 'channelId' | 'level' | 'source' | 'title' | 'fieldsJson'>;

/** The silences rows (src/db/shared/silence-rows.ts). */
export interface SilenceRows {
  insert(s: Silence): Promise<void>;
  /** The workspace's silences, newest first. */
  list(workspaceId: string): Promise<Silence[]>;
  byId(id: string): Promise<Silence | undefined>;
  /** Sets `expired_at` unless already set; false when there was nothing to expire. */
  expire(id: string, at: number): Promise<boolean>;
  /** The silences that may hold for a channel's alert at `at`, oldest first. */
  candidates(channelId: string, at: number): Promise<Silence[]>;
}

/** Whether the silence holds at `now` (not expired, started, not ended, inside its weekly window). */
export function isActive(s: Silence, now: number): boolean {
  if (s.expiredAt !== null && s.expiredAt <= now) return false;
  if (now < s.startsAt) return false;
  return s.schedule.weekly ? insideWindow(s.schedule.weekly, now) : now < s.schedule.endsAt;
}

/** Whether every matcher of the silence accepts the alert (a title substring case-insensitively, the rest exactly). */
export function matches(s: Silence, alert: SilenceSubject): boolean {
  if (s.channelId !== null && s.channelId !== alert.channelId) return false;
  if (s.level !== null && s.level !== alert.level) return false;
  if (s.source !== null && s.source !== alert.source) return false;
  if (s.titleContains !== null && !alert.title.toLowerCase().includes(s.titleContains.toLowerCase())) return false;
  if (s.fields.length === 0) return true;
  const fields = alert.fieldsJson ? (JSON.parse(alert.fieldsJson) as FieldMatcher[]) : [];
  return s.fields.every((m) => fields.some((f) => f.label === m.label && f.value === m.value));
}

/** The first of `silences` (oldest first) that holds at `now` and matches the alert, if any. */
export function isSilenced(silences: readonly Silence[], alert: SilenceSubject, now: number): Silence | undefined {
  return silences.find((s) => isActive(s, now) && matches(s, alert));
}

const DURATION_UNITS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Longest silence or snooze: a year. */
export const MAX_DURATION_MS = 366 * 86_400_000;

/** `30s`, `10m`, `2h`, `1d`: an integer and a unit, at most a year; null when not one. */
export function parseDuration(s: string): number | null {
  const m = /^([1-9]\d{0,5})([smhd])$/.exec(s);
  if (!m) return null;
  const ms = Number(m[1]) * DURATION_UNITS[m[2] as keyof typeof DURATION_UNITS];
  return ms <= MAX_DURATION_MS ? ms : null;
}

/** `Sat 02:00-04:00`, `Mon-Fri 22:00-06:00`, `Sat,Sun 00:00-24:00`: days and a wall-clock span (end after start, or crossing midnight). */
export function parseWeekly(s: string, timeZone: string): LocalWindow | null {
  const m = /^([A-Za-z,-]{3,60}) ([0-2]\d:[0-5]\d)-([0-2]\d:[0-5]\d)$/.exec(s.trim());
  if (!m) return null;
  let days = 0;
  for (const part of m[1]!.split(',')) {
    const names = part.split('-');
    const [from = -1, to = from] = names.map((d) => WEEKDAYS.findIndex((w) => w.toLowerCase() === d.toLowerCase()));
    if (from < 0 || to < 0 || names.length > 2) return null;
    for (let d = from; ; d = (d + 1) % 7) {
      days |= 1 << d;
      if (d === to) break;
    }
  }
  const start = parseClock(m[2]!);
  const end = m[3] === '24:00' ? 1440 : parseClock(m[3]!);
  if (start === null || end === null || start === end) return null;
  return { days, start, end, timeZone };
}

/** The weekly window as it was written (`Sat 02:00-04:00`), in the zone stored beside it. */
export function describeWeekly(w: LocalWindow): string {
  const days = WEEKDAYS.filter((_, d) => (w.days & (1 << d)) !== 0).join(',');
  return `${days} ${formatClock(w.start)}-${w.end === 1440 ? '24:00' : formatClock(w.end)}`;
}

/** What a person asks for, before it is checked. */
export interface SilenceRequest {
  workspaceId: string;
  /** A channel id or slug of the workspace; absent: the whole workspace. */
  channel?: string;
  level?: string;
  source?: string;
  titleContains?: string;
  /** `label=value` pairs. */
  fields?: string[];
  /** One of: a duration from now, an end time, or a weekly window with its zone. */
  for?: string;
  until?: string;
  weekly?: string;
  timeZone?: string;
  comment: string;
  /** The author: a user id or e-mail, an owner or admin of the workspace. */
  actor: string;
}

const invalid = (detail: string, field: string) =>
  new AppError('invalid-body', detail, { details: [{ code: 'invalid', message: detail, path: [field] }] });

/** The public JSON of a silence (CLI output, dashboard). */
export function silenceJson(s: Silence, now: number) {
  return {
    id: s.id,
    workspaceId: s.workspaceId,
    channelId: s.channelId,
    level: s.level,
    source: s.source,
    titleContains: s.titleContains,
    fields: s.fields,
    startsAt: new Date(s.startsAt).toISOString(),
    endsAt: s.schedule.endsAt === null ? null : new Date(s.schedule.endsAt).toISOString(),
    weekly: s.schedule.weekly ? describeWeekly(s.schedule.weekly) : null,
    timeZone: s.schedule.weekly?.timeZone ?? null,
    comment: s.comment,
    createdBy: s.createdBy,
    createdAt: new Date(s.createdAt).toISOString(),
    expiredAt: s.expiredAt === null ? null : new Date(s.expiredAt).toISOString(),
    state: s.expiredAt !== null && s.expiredAt <= now ? 'expired' : stateOf(s, now),
  };
}

function stateOf(s: Silence, now: number): 'active' | 'pending' | 'expired' {
  if (s.schedule.weekly) return isActive(s, now) ? 'active' : 'pending';
  if (now >= s.schedule.endsAt) return 'expired';
  return now < s.startsAt ? 'pending' : 'active';
}

/** Creating, listing and expiring silences: owners and admins of the workspace only. */
export class Silences {
  constructor(
    private readonly rows: SilenceRows,
    private readonly accounts: Pick<Accounts, 'requireUser' | 'requireWorkspace' | 'workspacesOf' | 'channelInWorkspace' | 'requireChannel'>,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** The user behind `actor` when they own or administer the workspace; a member or stranger is refused. */
  /** Outbound routes' silence check: a route skips an alert a silence held when its event happened. */
  readonly suppression: AlertSuppression = async (alert, at) => {
    const silence = isSilenced(await this.rows.candidates(alert.channelId, at), alert, at);
    return silence ? `silenced by ${silence.id}` : null;
  };

  async requireManager(workspaceId: string, actor: string) {
    await this.accounts.requireWorkspace(workspaceId);
    const user = await this.accounts.requireUser(actor);
    const role = (await this.accounts.workspacesOf(user.id)).find((w) => w.id === workspaceId)?.role;
    if (role !== 'owner' && role !== 'admin') throw new AppError('forbidden', `${user.email} is not an owner or admin of workspace ${workspaceId}`);
    return user;
  }

  async create(r: SilenceRequest): Promise<Silence> {
    const user = await this.requireManager(r.workspaceId, r.actor);
    const now = this.clock.now();
    const silence: Silence = {
      id: this.ids.next('sil'),
      workspaceId: r.workspaceId,
      channelId: r.channel ? await this.channelOf(r.workspaceId, r.channel) : null,
      level: r.level ? levelOf(r.level) : null,
      source: optionalText(r.source, PAYLOAD_LIMITS.source, 'source'),
      titleContains: optionalText(r.titleContains, SILENCE_LIMITS.titleContains, 'titleContains'),
      fields: fieldMatchers(r.fields ?? []),
      startsAt: now,
      schedule: scheduleOf(r, now),
      comment: requiredComment(r.comment),
      createdBy: user.id,
      createdAt: now,
      expiredAt: null,
    };
    if ((await this.rows.list(r.workspaceId)).length >= SILENCE_LIMITS.perWorkspace) {
      throw invalid(`a workspace keeps at most ${SILENCE_LIMITS.perWorkspace} silences`, 'workspace');
    }
    await this.rows.insert(silence);
    return silence;
  }

  async list(workspaceId: string): Promise<Silence[]> {
    await this.accounts.requireWorkspace(workspaceId);
    return await this.rows.list(workspaceId);
  }

  async byId(id: string): Promise<Silence | undefined> {
    return await this.rows.byId(id);
  }

  /** Ends a silence now; `actor` (when given, the dashboard's signed-in user) must manage its workspace. */
  async expire(id: string, actor?: string): Promise<Silence> {
    const s = await this.rows.byId(id);
    if (!s) throw new AppError('not-found', `silence ${id} not found`);
    if (actor !== undefined) await this.requireManager(s.workspaceId, actor);
    const now = this.clock.now();
    await this.rows.expire(id, now);
    return (await this.rows.byId(id)) ?? s;
  }

  private async channelOf(workspaceId: string, ref: string): Promise<string> {
    const byId = await this.accounts.channelInWorkspace(workspaceId, ref);
    if (byId) return byId.id;
    try {
      return (await this.accounts.requireChannel(ref, workspaceId)).id;
    } catch {
      throw new AppError('not-found', `channel ${ref} not found in workspace ${workspaceId}`);
    }
  }
}

function levelOf(raw: string): AlertLevel {
  const level = LEVELS.find((l) => l === raw.toUpperCase());
  if (!level) throw invalid(`level must be one of ${LEVELS.join(', ')}`, 'level');
  return level;
}

function optionalText(raw: string | undefined, max: number, field: string): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  if (raw.length > max) throw invalid(`${field} must be at most ${max} characters`, field);
  return raw;
}

function requiredComment(raw: string): string {
  const comment = raw.trim();
  if (!comment) throw invalid('a comment is required: say why alerts are silenced', 'comment');
  if (comment.length > SILENCE_LIMITS.comment) throw invalid(`comment must be at most ${SILENCE_LIMITS.comment} characters`, 'comment');
  return comment;
}

function fieldMatchers(pairs: string[]): FieldMatcher[] {
  if (pairs.length > SILENCE_LIMITS.fields) throw invalid(`at most ${SILENCE_LIMITS.fields} field matchers`, 'fields');
  return pairs.map((pair) => {
    const at = pair.indexOf('=');
    const label = at > 0 ? pair.slice(0, at) : '';
    const value = pair.slice(at + 1);
    if (!label || label.length > PAYLOAD_LIMITS.fieldLabel || value.length > PAYLOAD_LIMITS.fieldValue) {
      throw invalid(`a field matcher is label=value (label 1 to ${PAYLOAD_LIMITS.fieldLabel} characters): ${pair.slice(0, 120)}`, 'fields');
    }
    return { label, value };
  });
}

function scheduleOf(r: SilenceRequest, now: number): SilenceSchedule {
  const given = [r.for, r.until, r.weekly].filter((v) => v !== undefined && v !== '').length;
  if (given !== 1) throw invalid('give exactly one of a duration (for), an end time (until) or a weekly window', 'schedule');
  if (r.for) {
    const ms = parseDuration(r.for);
    if (ms === null) throw invalid('a duration is an integer and a unit (30s, 10m, 2h, 1d), at most a year', 'for');
    return { endsAt: now + ms, weekly: null };
  }
  if (r.until) {
    const endsAt = /^\d{4}-\d{2}-\d{2}T/.test(r.until) ? Date.parse(r.until) : NaN;
    if (!Number.isFinite(endsAt)) throw invalid('until must be an ISO 8601 date and time, such as 2026-12-24T18:00:00Z', 'until');
    if (endsAt <= now) throw invalid('until must be in the future', 'until');
    if (endsAt - now > MAX_DURATION_MS) throw invalid('a silence lasts at most a year', 'until');
    return { endsAt, weekly: null };
  }
  const zone = canonicalTimeZone(r.timeZone ?? '');
  if (!zone) throw invalid('a weekly window needs a time zone known to the tz database, such as Europe/Berlin', 'timeZone');
  const weekly = parseWeekly(r.weekly!, zone);
  if (!weekly) throw invalid("a weekly window reads like 'Sat 02:00-04:00' or 'Mon-Fri 22:00-06:00'", 'weekly');
  return { endsAt: null, weekly };
}
