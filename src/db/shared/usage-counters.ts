import { statement } from './statement.js';

/**
 * Adds billable events to a workspace's month (usage_counters): SQLite's batch tail writes one per
 * workspace and month of a group commit (src/db/sqlite/alert-store/usage-tally.ts), a PostgreSQL group update
 * one per counted event (src/db/pg/alert-store/group-writes.ts). A PostgreSQL batch of inserts adds its
 * counts in one unnest statement instead (src/db/pg/alert-store/alert-inserts.ts).
 */
export const ADD_USAGE_EVENTS = statement<{ workspaceId: string; month: string; events: number }>(
  `INSERT INTO usage_counters (workspace_id, month, events) VALUES (:workspaceId, :month, :events)
   ON CONFLICT (workspace_id, month) DO UPDATE SET events = usage_counters.events + excluded.events`,
);
