import type { AlertRow } from '../../domain/alert-store.js';
import type { OutboxChannel } from '../../domain/outbox-store.js';
import { ALERT_SELECT } from './alert-columns.js';
import { FLOOD_WINDOW_LOCK_CLASS } from './advisory-locks.js';
import { perEngine, statement } from './statement.js';

/** One alert, as the outboxes' claims read it. */
export const ALERT_BY_ID = statement<{ alertId: string }, AlertRow>(`SELECT ${ALERT_SELECT} FROM alerts a WHERE a.id = :alertId`);

/** A channel's names, as a notification shows them. */
export const OUTBOX_CHANNEL = statement<{ channelId: string }, OutboxChannel>(
  `SELECT c.name, c.slug, c.icon, w.name AS "workspaceName" FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.id = :channelId`,
);

/**
 * Serializes flood-window decisions for one (user, channel) across PostgreSQL nodes until COMMIT
 * (src/db/shared/advisory-locks.ts). On SQLite the claim's BEGIN IMMEDIATE already makes them one at a time.
 */
export const FLOOD_WINDOW_LOCK = perEngine<{ kind: 'mail' | 'push'; userId: string; channelId: string }>({
  sqlite: null,
  pg: `SELECT pg_advisory_xact_lock(${FLOOD_WINDOW_LOCK_CLASS}, hashtext(:kind::text || chr(10) || :userId::text || chr(10) || :channelId::text))`,
});
