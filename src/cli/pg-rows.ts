import { PgAccountRows } from '../db/pg/account-rows.js';
import { PgAlertRemoval } from '../db/pg/alert-store/alert-removal.js';
import { PgAlertReads } from '../db/pg/alert-store/reads.js';
import { PgAlertReports } from '../db/pg/alert-store/reports.js';
import { PgAuditRows, PgSignInLinkRows } from '../db/pg/auth-rows.js';
import { openPg } from '../db/pg/connection.js';
import { PgDiscordLinkRows } from '../db/pg/discord-link-rows.js';
import { PgMediaOrphanRows } from '../db/pg/media-orphan-rows.js';
import { PgPreferenceRows } from '../db/pg/preference-rows.js';
import { PgRetentionSettings } from '../db/pg/retention-settings.js';
import { SqlUsageRows } from '../db/shared/usage-rows.js';
import { PgExecutor } from '../db/pg/executor.js';
import type { CliRows } from './rows.js';

/** The admin commands' rows on PostgreSQL: a small pool, migrated on open as a node would. */
export async function openPgCliRows(url: string): Promise<CliRows> {
  const { pool, close } = await openPg(url, { max: 2 });
  return {
    accounts: new PgAccountRows(pool),
    usage: new SqlUsageRows(new PgExecutor(pool)),
    discordLinks: new PgDiscordLinkRows(pool),
    retention: new PgRetentionSettings(pool),
    reports: new PgAlertReports(pool),
    preferences: new PgPreferenceRows(pool),
    links: new PgSignInLinkRows(pool),
    audit: new PgAuditRows(pool),
    alerts: {
      reads: new PgAlertReads(pool),
      removal: new PgAlertRemoval(pool),
      isMediaReferenced: async (key) => (await pool.query('SELECT 1 FROM alert_attachments WHERE media_key = $1 LIMIT 1', [key])).rowCount === 1,
      orphans: new PgMediaOrphanRows(pool),
    },
    close,
  };
}
