import type { SqlExecutor } from '../db/shared/executor.js';
import { SqlAccountRows } from '../db/shared/account-rows.js';
import { SqlAlertReports } from '../db/shared/alert-reports.js';
import { SqlAuditRows, SqlSignInLinkRows } from '../db/shared/auth-rows.js';
import { SqlDiscordLinkRows } from '../db/shared/discord-link-rows.js';
import { SqlPreferenceRows } from '../db/shared/preference-rows.js';
import { SqlRetentionSettings } from '../db/shared/retention-settings.js';
import { SqlUsageRows } from '../db/shared/usage-rows.js';
import { SqlRouteRows } from '../db/shared/route-rows.js';
import { SqlSilenceRows } from '../db/shared/silence-rows.js';
import type { AccountRows } from '../domain/account-rows.js';
import type { AlertReports } from '../domain/alert-reports.js';
import type { AlertLifecycleWrites, AlertReads, AlertRemoval } from '../domain/alert-store.js';
import type { AuditRows } from '../domain/auth/audit.js';
import type { SignInLinkRows } from '../domain/auth/sign-in-links.js';
import type { DiscordLinkRows } from '../domain/chat/links.js';
import type { ReferenceCheck } from '../domain/media.js';
import type { MediaOrphanRows } from '../domain/media-orphan-rows.js';
import type { PreferenceRows } from '../domain/notification-preferences.js';
import type { QuietHoursRows } from '../domain/quiet-hours.js';
import { SqlQuietHoursRows } from '../db/shared/quiet-hours-rows.js';
import type { RetentionSettingsRows } from '../domain/retention.js';
import type { UsageRows } from '../domain/usage.js';
import type { RouteRowStore } from '../domain/routes/route-rows.js';
import type { SilenceRows } from '../domain/silences.js';
import type { EscalationPolicyRows } from '../domain/escalation/escalations.js';
import { SqlEscalationRows } from '../db/shared/escalation-rows.js';
import type { HeartbeatRows } from '../domain/heartbeats/ports.js';
import { SqlHeartbeatRows } from '../db/shared/heartbeat-rows.js';
import type { SsoRows } from '../domain/auth/sso/sso-rows.js';
import { SqlSsoRows } from '../db/shared/sso-rows.js';

/** The rows the admin commands use, on the engine the service runs on (src/services/admin.ts builds them). */
export interface AdminRows {
  accounts: AccountRows;
  usage: UsageRows;
  discordLinks: DiscordLinkRows;
  retention: RetentionSettingsRows;
  reports: AlertReports;
  preferences: PreferenceRows;
  links: SignInLinkRows;
  audit: AuditRows;
  routes: RouteRowStore;
  silences: SilenceRows;
  quietHours: QuietHoursRows;
  escalations: EscalationPolicyRows;
  heartbeats: HeartbeatRows;
  sso: SsoRows;
  alerts: { reads: AlertReads; removal: AlertRemoval; lifecycle: AlertLifecycleWrites; isMediaReferenced: ReferenceCheck; orphans: MediaOrphanRows };
  close(): void | Promise<void>;
}

/**
 * The admin rows over either engine's executor, each built when a command first uses it (a command on
 * the SQLite file prepares only its own statements). `alerts` is the engine's store slice.
 */
export function adminRowsOver(database: SqlExecutor, alerts: () => AdminRows['alerts'], close: () => void | Promise<void>): AdminRows {
  const once = <T>(make: () => T) => {
    let made: T | undefined;
    return () => (made ??= make());
  };
  const accounts = once(() => new SqlAccountRows(database));
  const usage = once(() => new SqlUsageRows(database));
  const discordLinks = once(() => new SqlDiscordLinkRows(database));
  const retention = once(() => new SqlRetentionSettings(database));
  const reports = once(() => new SqlAlertReports(database));
  const preferences = once(() => new SqlPreferenceRows(database));
  const links = once(() => new SqlSignInLinkRows(database));
  const audit = once(() => new SqlAuditRows(database));
  const sso = once(() => new SqlSsoRows(database));
  const routes = once(() => new SqlRouteRows(database));
  const silences = once(() => new SqlSilenceRows(database));
  const quietHours = once(() => new SqlQuietHoursRows(database));
  const escalations = once(() => new SqlEscalationRows(database));
  const heartbeats = once(() => new SqlHeartbeatRows(database));
  const alertRows = once(alerts);
  return {
    get accounts() { return accounts(); },
    get sso() { return sso(); },
    get usage() { return usage(); },
    get discordLinks() { return discordLinks(); },
    get retention() { return retention(); },
    get reports() { return reports(); },
    get preferences() { return preferences(); },
    get links() { return links(); },
    get audit() { return audit(); },
    get routes() { return routes(); },
    get silences() { return silences(); },
    get quietHours() { return quietHours(); },
    get escalations() { return escalations(); },
    get heartbeats() { return heartbeats(); },
    get alerts() { return alertRows(); },
    close,
  };
}
