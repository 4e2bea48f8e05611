import { PgAccountRows } from '../db/pg/account-rows.js';
import { PgWriteUnits } from '../db/pg/alert-store/unit.js';
import { PgAuditRows, PgSignInLinkRows } from '../db/pg/auth-rows.js';
import { openPg } from '../db/pg/connection.js';
import { PgExecutor } from '../db/pg/executor.js';
import { PgUsageRows } from '../db/pg/usage-rows.js';
import { SqlAlertReads } from '../db/shared/alert-reads.js';
import { SqlAlertRemoval } from '../db/shared/alert-removal.js';
import { SqlAlertReports } from '../db/shared/alert-reports.js';
import { SqlDiscordLinkRows } from '../db/shared/discord-link-rows.js';
import { SqlMediaOrphanRows } from '../db/shared/media-orphan-rows.js';
import { SqlPreferenceRows } from '../db/shared/preference-rows.js';
import { SqlRetentionSettings } from '../db/shared/retention-settings.js';
import type { AdminRows } from './admin-rows.js';

/**
 * The admin commands' rows on PostgreSQL: the row modules a node uses (src/services/postgres.ts), over a
 * small pool migrated on open, without the node's LISTEN connection, leader lock or claims.
 */
export async function openPgAdminRows(url: string): Promise<AdminRows> {
  const { pool, close } = await openPg(url, { max: 2 });
  const database = new PgExecutor(pool);
  return {
    accounts: new PgAccountRows(pool),
    usage: new PgUsageRows(pool),
    discordLinks: new SqlDiscordLinkRows(database),
    retention: new SqlRetentionSettings(database),
    reports: new SqlAlertReports(database),
    preferences: new SqlPreferenceRows(database),
    links: new PgSignInLinkRows(pool),
    audit: new PgAuditRows(pool),
    alerts: {
      reads: new SqlAlertReads(database),
      removal: new SqlAlertRemoval(new PgWriteUnits(pool)),
      isMediaReferenced: async (key) => (await pool.query('SELECT 1 FROM alert_attachments WHERE media_key = $1 LIMIT 1', [key])).rowCount === 1,
      orphans: new SqlMediaOrphanRows(database),
    },
    close,
  };
}
