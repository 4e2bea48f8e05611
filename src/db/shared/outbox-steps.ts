import type { AlertRow } from '../../domain/alert-store.js';
import type { OutboxChannel } from '../../domain/outbox-store.js';
import { ALERT_ROW_KEYS } from '../alert-store/rows.js';
import { FLOOD_WINDOW_LOCK_CLASS } from './advisory-locks.js';
import { alertAttachments, alerts } from '../schema/alerts.js';
import { perEngine, statement } from './statement.js';

/** `a.<column> AS "<key>", …` for a query that names the alerts table `a`: quoted, as PostgreSQL folds unquoted aliases. */
export const ALERT_SELECT = ALERT_ROW_KEYS.map((k) => `a.${alerts[k].name} AS "${k}"`).join(', ');

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

/** An attachment row's columns (`alert_attachments`, unaliased), quoted as ALERT_SELECT is. */
export const ATTACHMENT_SELECT = (['alertId', 'position', 'mediaKey', 'mime', 'kind', 'name', 'size'] as const)
  .map((key) => `${alertAttachments[key].name} AS "${key}"`)
  .join(', ');
