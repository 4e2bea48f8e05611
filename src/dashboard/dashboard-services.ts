import type { QuietHoursSettings } from '../domain/quiet-hours.js';
import type { Config } from '../config.js';
import type { Accounts } from '../domain/accounts.js';
import type { AlertStore } from '../domain/alert-store.js';
import type { AccountMail } from '../domain/auth/account-mail.js';
import type { AuditLog } from '../domain/auth/audit.js';
import type { Invitations } from '../domain/auth/invitations.js';
import type { Flashes } from '../domain/auth/flashes.js';
import type { Passwords } from '../domain/auth/passwords.js';
import type { Sessions } from '../domain/auth/sessions.js';
import type { SignInLinks } from '../domain/auth/sign-in-links.js';
import type { UnsubscribeLinks } from '../domain/auth/unsubscribe-links.js';
import type { BrowserFlashes } from '../domain/auth/browser-flashes.js';
import type { SingleSignOn } from '../domain/auth/sso/single-sign-on.js';
import type { SealedState } from '../domain/auth/sso/sealed-state.js';
import type { ChangeBus } from '../domain/changes.js';
import type { DiscordDirectory } from '../domain/chat/directory.js';
import type { DiscordLinks } from '../domain/chat/links.js';
import type { ChatThreads } from '../domain/chat/threads.js';
import type { NotificationPreferences } from '../domain/notification-preferences.js';
import type { PushSubscriptions } from '../domain/push.js';
import type { Limiter } from '../domain/rate-limiter.js';
import type { AlertActions } from '../domain/alert-actions.js';
import type { AlertActionLinks } from '../domain/alert-action-links.js';
import type { FeedPreferences } from '../domain/feed-preferences.js';
import type { ReadApi } from '../domain/read-api.js';
import type { SearchAlerts } from '../domain/search.js';
import type { Usage } from '../domain/usage.js';
import type { UserSettings } from '../domain/user-settings.js';
import type { AcceptWebhookAlert } from '../domain/webhook/accept-alert.js';
import type { WebhookFiles } from '../domain/webhook/request-files.js';
import type { Silences } from '../domain/silences.js';
import type { Routes } from '../domain/routes/routes.js';
import type { RoutePreviewer } from '../domain/routes/route-preview.js';
import type { AlertDeliveries } from '../domain/routes/alert-deliveries.js';
import type { Escalations } from '../domain/escalation/escalations.js';
import type { Heartbeats } from '../domain/heartbeats/heartbeats.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { LiveStreams } from '../notify/live-stream.js';
import type { VapidKeys } from '../notify/push/vapid.js';

/**
 * The use cases and ports the dashboard uses, and nothing more: the composition root
 * (src/services.ts) passes its services, which fit this shape, so the dashboard never
 * depends on the whole service graph.
 */
export interface DashboardServices {
  config: Config;
  clock: Clock;
  logger: Logger;
  /** Deleting an alert wakes the open streams. */
  bus: ChangeBus;
  accounts: Accounts;
  discordLinks: DiscordLinks;
  /** The bot's servers and channels by name (null on a node without the gateway). */
  discordDirectory: Pick<DiscordDirectory, 'servers'>;
  /** Sessions, sign-in links, passwords, audit log and invitations (built once, shared with first start and the CLI). */
  accountAuth: { sessions: Sessions; signInLinks: SignInLinks; passwords: Passwords; audit: AuditLog; invitations: Invitations; flashes: Flashes };
  signInLimiters: { perEmail: Limiter; perAddress: Limiter };
  accountMail: AccountMail;
  unsubscribe: UnsubscribeLinks;
  browserFlashes: BrowserFlashes;
  sso: { signOn: SingleSignOn; sealedState: SealedState };
  alertActionLinks: AlertActionLinks;
  notifyPrefs: NotificationPreferences;
  userSettings: UserSettings;
  quietHours: QuietHoursSettings;
  /** The feed's "Send a test alert": the webhook's own use case, so the sample is stored, counted and limited like any alert. */
  acceptAlert: Pick<AcceptWebhookAlert, 'admit' | 'accept'>;
  webhookFiles: WebhookFiles;
  push: { vapid: VapidKeys; subscriptions: PushSubscriptions };
  readApi: ReadApi;
  /** A chat channel's threads and forum posts (the forum's posts page). */
  chatThreads: Pick<ChatThreads, 'list' | 'heads' | 'messages'>;
  /** Acknowledge, resolve, reopen and snooze from the feed. */
  alertActions: AlertActions;
  feedPreferences: FeedPreferences;
  search: SearchAlerts;
  live: LiveStreams;
  usage: Usage;
  silences: Silences;
  /** Channel settings' routes: the use case, and the preview of what each kind sends. */
  routes: { routes: Routes; preview: RoutePreviewer };
  /** An alert's delivery log, with the API endpoint's visibility rule. */
  alertDeliveries: Pick<AlertDeliveries, 'list'>;
  /** Escalation per channel (the channel settings' section). */
  escalation: { escalations: Escalations };
  /** Heartbeat checks: the Heartbeats pages. */
  heartbeats: { checks: Heartbeats };
  /** The feed's rows, alert and channel deletion, the usage chart's counts. */
  store: Pick<AlertStore, 'reads' | 'removal' | 'reports' | 'channels'>;
  /** Marks a deleted alert's or channel's files as orphaned once nothing else uses them. */
  releaseMedia(keys: string[]): void;
}
