import type { HeartbeatChannel, HeartbeatCheck, HeartbeatRows, PingRequest, StoredPing } from '../../domain/heartbeats/ports.js';
import { PINGS_KEPT } from '../../domain/heartbeats/ports.js';
import type { PingOutcome } from '../../domain/heartbeats/ping.js';
import type { SqlExecutor } from './executor.js';
import { byDialect, statement } from './statement.js';

/** A check as stored: the schedule spread over its columns. */
interface CheckRow extends Omit<HeartbeatCheck, 'schedule'> {
  periodMs: number | null;
  cron: string | null;
  timeZone: string | null;
}

const COLUMNS = `id, workspace_id AS "workspaceId", channel_id AS "channelId", ping_uuid AS "pingUuid", name, slug,
  period_ms AS "periodMs", cron, time_zone AS "timeZone", grace_ms AS "graceMs", status, last_ping_at AS "lastPingAt",
  last_start_at AS "lastStartAt", last_start_rid AS "lastStartRid", last_duration_ms AS "lastDurationMs", down_at AS "downAt",
  down_since AS "downSince", alerted_since AS "alertedSince", ping_count AS "pingCount", created_at AS "createdAt"`;

const INSERT = statement<CheckRow>(
  `INSERT INTO heartbeat_checks (id, workspace_id, channel_id, ping_uuid, name, slug, period_ms, cron, time_zone, grace_ms, status,
     last_ping_at, last_start_at, last_start_rid, last_duration_ms, down_at, down_since, alerted_since, ping_count, created_at)
   VALUES (:id, :workspaceId, :channelId, :pingUuid, :name, :slug, :periodMs, :cron, :timeZone, :graceMs, :status,
     :lastPingAt, :lastStartAt, :lastStartRid, :lastDurationMs, :downAt, :downSince, :alertedSince, :pingCount, :createdAt)`,
);
/** Every column a ping or an edit changes. */
const SAVE = statement<CheckRow>(
  `UPDATE heartbeat_checks SET name = :name, slug = :slug, period_ms = :periodMs, cron = :cron, time_zone = :timeZone,
     grace_ms = :graceMs, status = :status, last_ping_at = :lastPingAt, last_start_at = :lastStartAt, last_start_rid = :lastStartRid,
     last_duration_ms = :lastDurationMs, down_at = :downAt, down_since = :downSince, ping_count = :pingCount
   WHERE id = :id`,
);
/** A ping's write: the state columns only, so the name, slug and schedule indexes are left alone on the hot path. */
const SAVE_PING = statement<Pick<CheckRow, 'id' | 'status' | 'lastPingAt' | 'lastStartAt' | 'lastStartRid' | 'lastDurationMs' | 'downAt' | 'downSince' | 'pingCount'>>(
  `UPDATE heartbeat_checks SET status = :status, last_ping_at = :lastPingAt, last_start_at = :lastStartAt, last_start_rid = :lastStartRid,
     last_duration_ms = :lastDurationMs, down_at = :downAt, down_since = :downSince, ping_count = :pingCount
   WHERE id = :id`,
);
const BY_ID = statement<{ id: string }, CheckRow>(`SELECT ${COLUMNS} FROM heartbeat_checks WHERE id = :id`);
const BY_ID_LOCKED = byDialect<{ id: string }, CheckRow>(
  (d) => `SELECT ${COLUMNS} FROM heartbeat_checks WHERE id = :id${d.engine === 'postgres' ? ' FOR UPDATE' : ''}`,
);
const BY_UUID = statement<{ pingUuid: string }, CheckRow>(`SELECT ${COLUMNS} FROM heartbeat_checks WHERE ping_uuid = :pingUuid`);
const BY_SLUG = statement<{ pingKey: string; slug: string }, CheckRow>(
  `SELECT ${COLUMNS} FROM heartbeat_checks
   WHERE slug = :slug AND workspace_id = (SELECT workspace_id FROM heartbeat_ping_keys WHERE ping_key = :pingKey)`,
);
const OF_WORKSPACE = statement<{ workspaceId: string }, CheckRow>(`SELECT ${COLUMNS} FROM heartbeat_checks WHERE workspace_id = :workspaceId ORDER BY name, id`);
const OF_CHANNEL = statement<{ channelId: string }, CheckRow>(`SELECT ${COLUMNS} FROM heartbeat_checks WHERE channel_id = :channelId ORDER BY name, id`);
const REMOVE = statement<{ id: string }>('DELETE FROM heartbeat_checks WHERE id = :id');
const INSERT_PING = statement<StoredPing & { checkId: string }>(
  `INSERT INTO heartbeat_pings (check_id, n, kind, exit_status, rid, method, user_agent, body, duration_ms, created_at)
   VALUES (:checkId, :n, :kind, :exitStatus, :rid, :method, :userAgent, :body, :durationMs, :createdAt)`,
);
const PRUNE_PINGS = statement<{ checkId: string; below: number }>('DELETE FROM heartbeat_pings WHERE check_id = :checkId AND n <= :below');
const PINGS = statement<{ checkId: string; limit: number }, StoredPing>(
  `SELECT n, kind, exit_status AS "exitStatus", rid, method, user_agent AS "userAgent", body, duration_ms AS "durationMs", created_at AS "createdAt"
   FROM heartbeat_pings WHERE check_id = :checkId ORDER BY n DESC LIMIT :limit`,
);
const OVERDUE = statement<{ now: number; limit: number }, CheckRow>(
  `SELECT ${COLUMNS} FROM heartbeat_checks WHERE down_at <= :now AND status IN ('new', 'up') ORDER BY down_at LIMIT :limit`,
);
/** Down exactly once: only the writer that still sees the due time it read moves the check. */
const MARK_DOWN = statement<{ id: string; downAt: number }>(
  `UPDATE heartbeat_checks SET status = 'down', down_since = down_at, down_at = NULL, last_start_at = NULL, last_start_rid = NULL
   WHERE id = :id AND down_at = :downAt AND status IN ('new', 'up')`,
);
const OWING = statement<{ limit: number }, CheckRow>(
  `SELECT ${COLUMNS} FROM heartbeat_checks
   WHERE (status = 'down' AND (alerted_since IS NULL OR alerted_since <> down_since)) OR (status = 'up' AND alerted_since IS NOT NULL)
   ORDER BY id LIMIT :limit`,
);
const MARK_ALERTED = statement<{ id: string; alertedSince: number | null; expect: number | null }>(
  `UPDATE heartbeat_checks SET alerted_since = :alertedSince
   WHERE id = :id AND (down_since = :expect OR (down_since IS NULL AND CAST(:expect AS BIGINT) IS NULL))`,
);
const NEXT_DOWN = statement<Record<string, never>, { at: number | null }>(
  `SELECT min(down_at) AS "at" FROM heartbeat_checks WHERE status IN ('new', 'up')`,
);
const CHANNEL = statement<{ channelId: string }, HeartbeatChannel>(
  `SELECT c.id, c.name, c.slug, c.workspace_id AS "workspaceId", w.name AS "workspaceName",
     CASE WHEN EXISTS (SELECT 1 FROM discord_links dl WHERE dl.channel_id = c.id) THEN 1 ELSE 0 END AS "chatConnected"
   FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.id = :channelId`,
  { booleans: ['chatConnected'] },
);
const PING_KEY = statement<{ workspaceId: string }, { pingKey: string }>(`SELECT ping_key AS "pingKey" FROM heartbeat_ping_keys WHERE workspace_id = :workspaceId`);
const SET_PING_KEY = statement<{ workspaceId: string; pingKey: string; now: number }>(
  `INSERT INTO heartbeat_ping_keys (workspace_id, ping_key, created_at) VALUES (:workspaceId, :pingKey, :now)
   ON CONFLICT (workspace_id) DO UPDATE SET ping_key = excluded.ping_key, created_at = excluded.created_at`,
);
const SLUG_TAKEN = statement<{ workspaceId: string; slug: string; exceptId: string }, { found: number }>(
  'SELECT 1 AS "found" FROM heartbeat_checks WHERE workspace_id = :workspaceId AND slug = :slug AND id <> :exceptId',
);

function checkOf(r: CheckRow): HeartbeatCheck {
  const { periodMs, cron, timeZone, ...rest } = r;
  return { ...rest, schedule: cron !== null && timeZone !== null ? { kind: 'cron', cron, timeZone } : { kind: 'period', periodMs: periodMs ?? 0 } };
}

function rowOf(c: HeartbeatCheck): CheckRow {
  const { schedule, ...rest } = c;
  return {
    ...rest,
    periodMs: schedule.kind === 'period' ? schedule.periodMs : null,
    cron: schedule.kind === 'cron' ? schedule.cron : null,
    timeZone: schedule.kind === 'cron' ? schedule.timeZone : null,
  };
}

/** Heartbeat checks, their pings and the workspaces' ping keys (src/db/shared/schema/heartbeats.ts), on either engine. */
export class SqlHeartbeatRows implements HeartbeatRows {
  constructor(private readonly database: SqlExecutor) {}

  async insert(check: HeartbeatCheck): Promise<void> {
    await this.database.run(INSERT, rowOf(check));
  }

  async edit(id: string, change: (check: HeartbeatCheck) => HeartbeatCheck): Promise<HeartbeatCheck | undefined> {
    return await this.database.transaction(function* (tx) {
      const row = yield* tx.get(BY_ID_LOCKED, { id });
      if (!row) return undefined;
      const next = change(checkOf(row));
      yield* tx.run(SAVE, rowOf(next));
      return next;
    });
  }

  async setPaused(id: string, paused: boolean): Promise<HeartbeatCheck | undefined> {
    return await this.database.transaction(function* (tx) {
      const row = yield* tx.get(BY_ID_LOCKED, { id });
      if (!row) return undefined;
      const c = checkOf(row);
      // Resuming starts afresh, as Healthchecks' resume does: new until the next ping.
      const next: HeartbeatCheck = paused
        ? { ...c, status: 'paused', downAt: null, lastStartAt: null, lastStartRid: null }
        : { ...c, status: c.status === 'paused' ? 'new' : c.status, lastPingAt: c.status === 'paused' ? null : c.lastPingAt, downAt: c.status === 'paused' ? null : c.downAt };
      yield* tx.run(SAVE, rowOf(next));
      return next;
    });
  }

  async remove(id: string): Promise<boolean> {
    return (await this.database.run(REMOVE, { id })) > 0;
  }

  async byId(id: string) {
    const r = await this.database.get(BY_ID, { id });
    return r && checkOf(r);
  }

  async byUuid(pingUuid: string) {
    const r = await this.database.get(BY_UUID, { pingUuid });
    return r && checkOf(r);
  }

  async bySlug(pingKey: string, slug: string) {
    const r = await this.database.get(BY_SLUG, { pingKey, slug });
    return r && checkOf(r);
  }

  async ofWorkspace(workspaceId: string) {
    return (await this.database.all(OF_WORKSPACE, { workspaceId })).map(checkOf);
  }

  async ofChannel(channelId: string) {
    return (await this.database.all(OF_CHANNEL, { channelId })).map(checkOf);
  }

  async ping(checkId: string, request: PingRequest, now: number, apply: (state: HeartbeatCheck) => PingOutcome) {
    return await this.database.transaction(function* (tx) {
      const row = yield* tx.get(BY_ID_LOCKED, { id: checkId });
      if (!row) return undefined;
      const before = checkOf(row);
      const out = apply(before);
      const becameDown = out.state.status === 'down' && before.status !== 'down';
      const after: HeartbeatCheck = {
        ...before,
        ...out.state,
        downAt: out.downAt,
        downSince: becameDown ? now : out.state.status === 'down' ? before.downSince : null,
        pingCount: before.pingCount + 1,
      };
      const { id, status, lastPingAt, lastStartAt, lastStartRid, lastDurationMs, downAt, downSince, pingCount } = after;
      yield* tx.run(SAVE_PING, { id, status, lastPingAt, lastStartAt, lastStartRid, lastDurationMs, downAt, downSince, pingCount });
      yield* tx.run(INSERT_PING, { checkId, n: after.pingCount, kind: out.kind, exitStatus: out.exitStatus, rid: request.rid, method: request.method, userAgent: request.userAgent, body: request.body, durationMs: out.durationMs, createdAt: now });
      // Every tenth ping trims the history to the last PINGS_KEPT.
      if (after.pingCount % 10 === 0) yield* tx.run(PRUNE_PINGS, { checkId, below: after.pingCount - PINGS_KEPT });
      return { before, after };
    });
  }

  async pings(checkId: string, limit: number) {
    return await this.database.all(PINGS, { checkId, limit });
  }

  async markOverdue(now: number, limit: number) {
    const due = await this.database.all(OVERDUE, { now, limit });
    const moved: HeartbeatCheck[] = [];
    for (const r of due) {
      if ((await this.database.run(MARK_DOWN, { id: r.id, downAt: r.downAt! })) === 1) {
        moved.push({ ...checkOf(r), status: 'down', downSince: r.downAt, downAt: null, lastStartAt: null, lastStartRid: null });
      }
    }
    return moved;
  }

  async owingAlerts(limit: number) {
    return (await this.database.all(OWING, { limit })).map(checkOf);
  }

  async markAlerted(id: string, alertedSince: number | null, expectDownSince: number | null) {
    return (await this.database.run(MARK_ALERTED, { id, alertedSince, expect: expectDownSince })) === 1;
  }

  async nextDownAt() {
    return (await this.database.get(NEXT_DOWN, {}))?.at ?? null;
  }

  async channel(channelId: string) {
    return await this.database.get(CHANNEL, { channelId });
  }

  async pingKeyOf(workspaceId: string) {
    return (await this.database.get(PING_KEY, { workspaceId }))?.pingKey;
  }

  async setPingKey(workspaceId: string, pingKey: string, now: number) {
    await this.database.run(SET_PING_KEY, { workspaceId, pingKey, now });
  }

  async slugTaken(workspaceId: string, slug: string, exceptId = '') {
    return (await this.database.get(SLUG_TAKEN, { workspaceId, slug, exceptId })) !== undefined;
  }
}
