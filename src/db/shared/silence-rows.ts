import type { AlertLevel } from '../../domain/alert-rows.js';
import type { FieldMatcher, Silence, SilenceRows } from '../../domain/silences.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { statement } from './statement.js';

/** A silence as stored: matchers flat, fields as JSON text, the schedule spread over its columns. */
interface SilenceRow {
  id: string;
  workspaceId: string;
  channelId: string | null;
  level: AlertLevel | null;
  source: string | null;
  titleContains: string | null;
  fieldsJson: string | null;
  startsAt: number;
  endsAt: number | null;
  weeklyDays: number | null;
  weeklyStart: number | null;
  weeklyEnd: number | null;
  timeZone: string | null;
  comment: string;
  createdBy: string | null;
  createdAt: number;
  expiredAt: number | null;
}

const COLUMNS = `id, workspace_id AS "workspaceId", channel_id AS "channelId", level, source, title_contains AS "titleContains",
  fields_json AS "fieldsJson", starts_at AS "startsAt", ends_at AS "endsAt", weekly_days AS "weeklyDays", weekly_start AS "weeklyStart",
  weekly_end AS "weeklyEnd", time_zone AS "timeZone", comment, created_by AS "createdBy", created_at AS "createdAt", expired_at AS "expiredAt"`;

const INSERT = statement<SilenceRow>(
  `INSERT INTO silences (id, workspace_id, channel_id, level, source, title_contains, fields_json, starts_at, ends_at,
     weekly_days, weekly_start, weekly_end, time_zone, comment, created_by, created_at, expired_at)
   VALUES (:id, :workspaceId, :channelId, :level, :source, :titleContains, :fieldsJson, :startsAt, :endsAt,
     :weeklyDays, :weeklyStart, :weeklyEnd, :timeZone, :comment, :createdBy, :createdAt, :expiredAt)`,
);
const LIST = statement<{ workspaceId: string }, SilenceRow>(
  `SELECT ${COLUMNS} FROM silences WHERE workspace_id = :workspaceId ORDER BY created_at DESC, id DESC`,
);
const BY_ID = statement<{ id: string }, SilenceRow>(`SELECT ${COLUMNS} FROM silences WHERE id = :id`);
const EXPIRE = statement<{ id: string; at: number }>('UPDATE silences SET expired_at = :at WHERE id = :id AND expired_at IS NULL');

/**
 * The silences that may hold at `now` for a channel's alerts: of its workspace, for it or for every
 * channel, started, not expired, and not past their end (weekly windows are checked by the domain).
 * Oldest first, so the silence an alert names is stable.
 */
const CANDIDATES = statement<{ channelId: string; now: number }, SilenceRow>(
  `SELECT ${COLUMNS} FROM silences
   WHERE workspace_id = (SELECT workspace_id FROM channels WHERE id = :channelId)
     AND (channel_id IS NULL OR channel_id = :channelId)
     AND starts_at <= :now AND (expired_at IS NULL OR expired_at > :now) AND (ends_at IS NULL OR ends_at > :now)
   ORDER BY created_at, id`,
);

function silenceOf(r: SilenceRow): Silence {
  return {
    id: r.id,
    workspaceId: r.workspaceId,
    channelId: r.channelId,
    level: r.level,
    source: r.source,
    titleContains: r.titleContains,
    fields: r.fieldsJson ? (JSON.parse(r.fieldsJson) as FieldMatcher[]) : [],
    startsAt: r.startsAt,
    schedule:
      r.weeklyDays !== null && r.timeZone !== null
        ? { endsAt: null, weekly: { days: r.weeklyDays, start: r.weeklyStart ?? 0, end: r.weeklyEnd ?? 0, timeZone: r.timeZone } }
        : { endsAt: r.endsAt ?? r.startsAt, weekly: null },
    comment: r.comment,
    createdBy: r.createdBy,
    createdAt: r.createdAt,
    expiredAt: r.expiredAt,
  };
}

function rowOf(s: Silence): SilenceRow {
  const weekly = s.schedule.weekly;
  return {
    id: s.id,
    workspaceId: s.workspaceId,
    channelId: s.channelId,
    level: s.level,
    source: s.source,
    titleContains: s.titleContains,
    fieldsJson: s.fields.length > 0 ? JSON.stringify(s.fields) : null,
    startsAt: s.startsAt,
    endsAt: s.schedule.endsAt,
    weeklyDays: weekly?.days ?? null,
    weeklyStart: weekly?.start ?? null,
    weeklyEnd: weekly?.end ?? null,
    timeZone: weekly?.timeZone ?? null,
    comment: s.comment,
    createdBy: s.createdBy,
    createdAt: s.createdAt,
    expiredAt: s.expiredAt,
  };
}

/** The silences that may hold for a channel's alert at `now`, read inside another unit's transaction (the outbox's fan-out). */
export function* candidateSilences(tx: TransactionSteps, channelId: string, now: number): Step<Silence[]> {
  return (yield* tx.all(CANDIDATES, { channelId, now })).map(silenceOf);
}

/** The `silences` table, on either engine (test/cluster/silence-rows-contract.test.ts). */
export class SqlSilenceRows implements SilenceRows {
  constructor(private readonly database: SqlExecutor) {}

  async insert(s: Silence): Promise<void> {
    await this.database.run(INSERT, rowOf(s));
  }

  async list(workspaceId: string): Promise<Silence[]> {
    return (await this.database.all(LIST, { workspaceId })).map(silenceOf);
  }

  async byId(id: string): Promise<Silence | undefined> {
    const row = await this.database.get(BY_ID, { id });
    return row && silenceOf(row);
  }

  async candidates(channelId: string, at: number): Promise<Silence[]> {
    return (await this.database.all(CANDIDATES, { channelId, now: at })).map(silenceOf);
  }

  async expire(id: string, at: number): Promise<boolean> {
    return (await this.database.run(EXPIRE, { id, at })) > 0;
  }
}
