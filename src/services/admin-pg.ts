import { PgWriteUnits } from '../db/pg/alert-store/unit.js';
import { openPg } from '../db/pg/connection.js';
import { PgExecutor } from '../db/pg/executor.js';
import { SqlAccountRows } from '../db/shared/account-rows.js';
import { SqlAlertReads } from '../db/shared/alert-reads.js';
import { SqlAlertRemoval } from '../db/shared/alert-removal.js';
import { SqlAlertLifecycle } from '../db/shared/alert-lifecycle-rows.js';
import { SqlAlertReports } from '../db/shared/alert-reports.js';
import { SqlDiscordLinkRows } from '../db/shared/discord-link-rows.js';
import { SqlMediaOrphanRows } from '../db/shared/media-orphan-rows.js';
import { SqlPreferenceRows } from '../db/shared/preference-rows.js';
import { SqlRetentionSettings } from '../db/shared/retention-settings.js';
import { SqlAuditRows, SqlSignInLinkRows } from '../db/shared/auth-rows.js';
import { MEDIA_REFERENCED } from '../db/shared/store-lookups.js';
import { SqlUsageRows } from '../db/shared/usage-rows.js';
import type { AdminRows } from './admin-rows.js';

/**
 * The admin commands' rows on PostgreSQL: the row modules a node uses (src/services/postgres.ts), over a
 * small pool migrated on open, without the node's LISTEN connection, leader lock or claims.
 */
export async function openPgAdminRows(url: string): Promise<AdminRows> {
  const { pool, close } = await openPg(url, { max: 2 });
  const database = new PgExecutor(pool);
  return {
    accounts: new SqlAccountRows(database),
    usage: new SqlUsageRows(database),
    discordLinks: new SqlDiscordLinkRows(database),
    retention: new SqlRetentionSettings(database),
    reports: new SqlAlertReports(database),
    preferences: new SqlPreferenceRows(database),
    links: new SqlSignInLinkRows(database),
    audit: new SqlAuditRows(database),
    alerts: {
      reads: new SqlAlertReads(database),
      removal: new SqlAlertRemoval(new PgWriteUnits(pool)),
      lifecycle: new SqlAlertLifecycle(database, new PgWriteUnits(pool)),
      isMediaReferenced: async (key) => (await database.get(MEDIA_REFERENCED, { key })) !== undefined,
      orphans: new SqlMediaOrphanRows(database),
    },
    close,
  };
}
