import { alertAttachments, alerts } from '../../schema/alerts.js';
import { ALERT_ROW_KEYS } from '../../alert-store/rows.js';

/**
 * The SQLite store's column list (src/db/alert-store/rows.ts) spelled for PostgreSQL: aliases are
 * quoted, as PostgreSQL folds unquoted ones to lower case. Column names come from the drizzle schema
 * shared by both engines (test/cluster/schema-parity.test.ts keeps them equal).
 */
export const PG_ALERT_COLUMNS = ALERT_ROW_KEYS.map((k) => `a.${alerts[k].name} AS "${k}"`).join(', ');

export const PG_ATTACHMENT_COLUMNS = (['alertId', 'position', 'mediaKey', 'mime', 'kind', 'name', 'size'] as const)
  .map((k) => `${alertAttachments[k].name} AS "${k}"`)
  .join(', ');

/**
 * The channel visibility rule of src/db/visibility.ts for PostgreSQL (a boolean column, numbered
 * parameters): the workspace is `$1`, the user `$2`. The contract test runs the same visibility
 * cases on both engines.
 */
export const PG_VISIBLE_TO_PRINCIPAL = `c.workspace_id = $1 AND (NOT c.is_private OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = $2))`;
