import type { AccountRows } from '../domain/account-rows.js';
import type { AlertReports } from '../domain/alert-reports.js';
import type { AlertLifecycleWrites, AlertReads, AlertRemoval } from '../domain/alert-store.js';
import type { AuditRows } from '../domain/auth/audit.js';
import type { SignInLinkRows } from '../domain/auth/sign-in-links.js';
import type { DiscordLinkRows } from '../domain/chat/links.js';
import type { ReferenceCheck } from '../domain/media.js';
import type { MediaOrphanRows } from '../domain/media-orphan-rows.js';
import type { PreferenceRows } from '../domain/notification-preferences.js';
import type { RetentionSettingsRows } from '../domain/retention.js';
import type { UsageRows } from '../domain/usage.js';

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
  alerts: { reads: AlertReads; removal: AlertRemoval; lifecycle: AlertLifecycleWrites; isMediaReferenced: ReferenceCheck; orphans: MediaOrphanRows };
  close(): void | Promise<void>;
}
