import { SqlAccountMailRows } from '../db/shared/account-mail-rows.js';
import { SqlAccountRows } from '../db/shared/account-rows.js';
import { SqlAuditRows, SqlPasswordRows, SqlSessionRows, SqlSignInLinkRows } from '../db/shared/auth-rows.js';
import { SqlDiscordLinkRows } from '../db/shared/discord-link-rows.js';
import type { SqlExecutor } from '../db/shared/executor.js';
import { SqlInvitationRows } from '../db/shared/invitation-rows.js';
import { SqlMediaOrphanRows } from '../db/shared/media-orphan-rows.js';
import { SqlPreferenceRows } from '../db/shared/preference-rows.js';
import { SqlPushSubscriptionRows } from '../db/shared/push-rows.js';
import { SqlRetentionSettings } from '../db/shared/retention-settings.js';
import { SqlTokenRows } from '../db/shared/token-rows.js';
import { SqlUsageRows } from '../db/shared/usage-rows.js';
import type { AuthRows } from './engine.js';

/**
 * The row modules written once (src/db/shared/), built over either engine's executor: the same
 * classes on SQLite and PostgreSQL, so neither engine's builder lists them. A new table's rows go here.
 */
export function sharedRows(database: SqlExecutor) {
  const authRows: AuthRows = {
    sessions: new SqlSessionRows(database),
    links: new SqlSignInLinkRows(database),
    passwords: new SqlPasswordRows(database),
    audit: new SqlAuditRows(database),
    invitations: new SqlInvitationRows(database),
  };
  return {
    accountRows: new SqlAccountRows(database),
    tokenRows: new SqlTokenRows(database),
    usageRows: new SqlUsageRows(database),
    discordLinkRows: new SqlDiscordLinkRows(database),
    preferenceRows: new SqlPreferenceRows(database),
    retentionRows: new SqlRetentionSettings(database),
    pushSubscriptionRows: new SqlPushSubscriptionRows(database),
    authRows,
    accountMailRows: new SqlAccountMailRows(database),
    mediaOrphanRows: new SqlMediaOrphanRows(database),
  };
}
