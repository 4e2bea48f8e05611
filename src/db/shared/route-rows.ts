import type { RouteChange, RouteRow, RouteRowStore } from '../../domain/routes/route-rows.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

/** The stored shape: events comma-framed (",alert.opened,"), so the write unit's LIKE can pick routes; fields as JSON. */
type Stored = Omit<RouteRow, 'events' | 'fields'> & { events: string; fieldsJson: string };

const COLUMNS = `id, channel_id AS "channelId", kind, target_sealed AS "targetSealed", key_id AS "keyId", target_hint AS "targetHint",
  min_level AS "minLevel", events, source, fields_json AS "fieldsJson", state, paused_reason AS "pausedReason",
  failing_since AS "failingSince", rate_per_minute AS "ratePerMinute", created_at AS "createdAt", updated_at AS "updatedAt"`;

const INSERT = statement<Stored>(
  `INSERT INTO routes (id, channel_id, kind, target_sealed, key_id, target_hint, min_level, events, source, fields_json, state, paused_reason,
     failing_since, rate_per_minute, created_at, updated_at)
   VALUES (:id, :channelId, :kind, :targetSealed, :keyId, :targetHint, :minLevel, :events, :source, :fieldsJson, :state, :pausedReason,
     :failingSince, :ratePerMinute, :createdAt, :updatedAt)`,
);
const UPDATE = statement<Omit<Stored, 'channelId' | 'kind' | 'createdAt'>>(
  `UPDATE routes SET target_sealed = :targetSealed, key_id = :keyId, target_hint = :targetHint, min_level = :minLevel, events = :events,
     source = :source, fields_json = :fieldsJson, state = :state, paused_reason = :pausedReason, failing_since = :failingSince,
     rate_per_minute = :ratePerMinute, updated_at = :updatedAt
   WHERE id = :id`,
);
const BY_ID = statement<{ id: string }, Stored>(`SELECT ${COLUMNS} FROM routes WHERE id = :id`);
const ALL = statement<Record<string, never>, Stored>(`SELECT ${COLUMNS} FROM routes ORDER BY created_at, id`);
const OF_CHANNEL = statement<{ channelId: string }, Stored>(`SELECT ${COLUMNS} FROM routes WHERE channel_id = :channelId ORDER BY created_at, id`);
const REMOVE = statement<{ id: string }>('DELETE FROM routes WHERE id = :id');

export const frameEvents = (events: readonly string[]) => `,${events.join(',')},`;

export function routeOf(s: Stored): RouteRow {
  const { fieldsJson, events, ...rest } = s;
  return { ...rest, events: events.split(',').filter(Boolean) as RouteRow['events'], fields: JSON.parse(fieldsJson) as RouteRow['fields'] };
}

function storedOf(r: RouteRow): Stored {
  const { fields, events, ...rest } = r;
  return { ...rest, events: frameEvents(events), fieldsJson: JSON.stringify(fields) };
}

/** The routes table on either engine; the outbox's rows are src/db/shared/route-outbox.ts. */
export class SqlRouteRows implements RouteRowStore {
  constructor(private readonly database: SqlExecutor) {}

  async insert(row: RouteRow): Promise<void> {
    await this.database.run(INSERT, storedOf(row));
  }

  async update(id: string, change: RouteChange, now: number): Promise<boolean> {
    return this.database.transaction(function* (tx) {
      const stored = yield* tx.get(BY_ID, { id });
      if (!stored) return false;
      const { channelId: _c, kind: _k, createdAt: _t, ...next } = storedOf({ ...routeOf(stored), ...change, updatedAt: now });
      yield* tx.run(UPDATE, next);
      return true;
    });
  }

  async byId(id: string): Promise<RouteRow | undefined> {
    const s = await this.database.get(BY_ID, { id });
    return s && routeOf(s);
  }

  async list(channelId?: string): Promise<RouteRow[]> {
    const rows = channelId === undefined ? await this.database.all(ALL, {}) : await this.database.all(OF_CHANNEL, { channelId });
    return rows.map(routeOf);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.database.run(REMOVE, { id })) > 0;
  }
}
