import type { StoredGroupState } from '../../domain/alert-groups.js';
import type { AlertContent, RunState, StoredKeyed } from '../../domain/alert-store.js';
import { plainContentAssignments } from './alert-content-columns.js';
import { byDialect, perEngine, statement } from './statement.js';

// The statements of the group, sender-key and run-step writes (src/db/sqlite/alert-store/group-writes.ts on SQLite,
// src/db/pg/alert-store/group-writes.ts on PostgreSQL). The units around them stay per engine: SQLite's
// run inside the group commit, PostgreSQL's lock the stored row and retry a lost insert race.

type StoredGroup = { alertId: string } & StoredGroupState;

/** PostgreSQL locks the row, so two nodes updating one group take turns; SQLite's single writer makes it moot. */
export const FIND_GROUP = byDialect<{ channelId: string; groupKey: string }, StoredGroup>(
  (dialect) => `SELECT alert_id AS "alertId", status, state_fingerprint AS "stateFingerprint" FROM alert_groups
   WHERE channel_id = :channelId AND group_key = :groupKey${dialect.engine === 'postgres' ? ' FOR UPDATE' : ''}`,
);

/** A plain INSERT: on PostgreSQL a second node creating the group at once fails on the key and retries as an update. */
export const INSERT_GROUP = statement<{ channelId: string; groupKey: string; alertId: string; now: number } & StoredGroupState>(
  `INSERT INTO alert_groups (channel_id, group_key, alert_id, status, state_fingerprint, updated_at)
   VALUES (:channelId, :groupKey, :alertId, :status, :stateFingerprint, :now)`,
);

export const UPDATE_GROUP = statement<{ channelId: string; groupKey: string; now: number } & StoredGroupState>(
  `UPDATE alert_groups SET status = :status, state_fingerprint = :stateFingerprint, updated_at = :now
   WHERE channel_id = :channelId AND group_key = :groupKey`,
);

type ContentUpdate = AlertContent & { id: string; now: number; resurfaceAs: string | null; resurfaceSeq: number | null };
/** Built once from the content list (alert-content-columns.ts); a group alert has no run columns to write. */
const CONTENT_COLUMNS = `${plainContentAssignments((key) => `:${key}`)}, activity_key = COALESCE(:resurfaceAs, activity_key)`;
/**
 * A fresh activity key resurfaces the alert. Its new read-order number comes from SQLite's batch
 * tally (`resurfaceSeq`), or from PostgreSQL's trigger on activity_key (which ignores `resurfaceSeq`).
 */
export const UPDATE_CONTENT = perEngine<ContentUpdate>({
  sqlite: `UPDATE alerts SET ${CONTENT_COLUMNS}, seq = COALESCE(:resurfaceSeq, seq), updated_at = :now WHERE id = :id`,
  pg: `UPDATE alerts SET ${CONTENT_COLUMNS}, updated_at = :now WHERE id = :id`,
});

/** PostgreSQL locks the run's row, as FIND_GROUP does. */
export const FIND_RUN = byDialect<{ channelId: string; runId: string }, { id: string; state: RunState; stepsJson: string | null }>(
  (dialect) => `SELECT id, workflow_state AS state, workflow_steps_json AS "stepsJson" FROM alerts
   WHERE channel_id = :channelId AND workflow_run_id = :runId${dialect.engine === 'postgres' ? ' FOR UPDATE' : ''}`,
);

export const SET_STEPS = statement<{ id: string; stepsJson: string; now: number }>(
  'UPDATE alerts SET workflow_steps_json = :stepsJson, updated_at = :now WHERE id = :id',
);

/** The alert under a sender's dedupKey; PostgreSQL locks it, as FIND_GROUP does. */
export const FIND_KEYED = byDialect<{ channelId: string; dedupKey: string }, { id: string } & StoredKeyed>(
  (dialect) => `SELECT id, status, level FROM alerts
   WHERE channel_id = :channelId AND dedup_key = :dedupKey${dialect.engine === 'postgres' ? ' FOR UPDATE' : ''}`,
);
