import { ChatThreads } from './domain/chat/threads.js';
import type { Config } from './config.js';
import type { WebhookChannels } from './domain/webhook/webhook-channels.js';
import type { WebhookFiles } from './domain/webhook/request-files.js';
import { Accounts } from './domain/accounts.js';
import { Silences } from './domain/silences.js';
import { SqlSilenceRows } from './db/shared/silence-rows.js';
import { SqlEscalationRows } from './db/shared/escalation-rows.js';
import { Escalations } from './domain/escalation/escalations.js';
import { EscalationPass } from './domain/escalation/escalation-pass.js';
import type { FirstStartUnit } from './domain/account-rows.js';
import type { AlertGroupWrites } from './domain/alert-groups.js';
import type { AlertStore } from './domain/alert-store.js';
import type { ChangeBus } from './domain/changes.js';
import { ChatIngest } from './domain/chat/ingest.js';
import { DiscordDirectory } from './domain/chat/directory.js';
import { DiscordLinks } from './domain/chat/links.js';
import { Idempotency } from './domain/idempotency.js';
import { ReadApi } from './domain/read-api.js';
import { SearchAlerts } from './domain/search.js';
import { TokenAuthenticator } from './domain/tokens.js';
import { Usage } from './domain/usage.js';
import { AcceptWebhookAlert } from './domain/webhook/accept-alert.js';
import { AvatarMirror } from './domain/webhook/avatars.js';
import { UserSettings } from './domain/user-settings.js';
import { SqlUserSettingsRows } from './db/shared/user-settings-rows.js';
import { SqlQuietHoursRows } from './db/shared/quiet-hours-rows.js';
import { SqlQuietDigests } from './db/shared/quiet-digests.js';
import { QuietHoursSettings } from './domain/quiet-hours.js';
import type { QuietDigestOutbox } from './domain/quiet-digests.js';
import { AlertActions } from './domain/alert-actions.js';
import { AlertActionLinks } from './domain/alert-action-links.js';
import { SqlActionLinkUses } from './db/shared/action-link-use-rows.js';
import { FeedPreferences } from './domain/feed-preferences.js';
import { SqlFeedPreferenceRows } from './db/shared/feed-preference-rows.js';
import { WebhookIngest } from './domain/webhook/ingest.js';
import { FormatIngest } from './domain/webhook/ingest-formats.js';
import { systemClock, type Clock } from './lib/clock.js';
import { IdGenerator } from './lib/ids.js';
import { createLogger, type Logger } from './lib/logger.js';
import type { Limiter } from './domain/rate-limiter.js';
import type { Leadership } from './lib/singletons.js';
import { createMediaFetcher, type MediaFetcherOptions } from './media/fetcher.js';
import type { MediaFetcher } from './domain/media.js';
import { MediaRequestFiles } from './media/request-files.js';
import { MediaStore } from './media/store.js';
import { EVENT_RETENTION_DAYS, LiveStreams, type LiveStreamOptions } from './notify/live-stream.js';
import { NotificationPreferences, type UnitRecipientRule } from './domain/notification-preferences.js';
import { MediaOrphans } from './ops/media-orphans.js';
import { UnsubscribeLinks } from './domain/auth/unsubscribe-links.js';
import { BrowserFlashes } from './domain/auth/browser-flashes.js';
import { AccountMail } from './domain/auth/account-mail.js';
import { SqlSsoRows } from './db/shared/sso-rows.js';
import { SingleSignOn } from './domain/auth/sso/single-sign-on.js';
import { AuditLog } from './domain/auth/audit.js';
import { SealedState } from './domain/auth/sso/sealed-state.js';
import type { ScryptParams } from './domain/auth/passwords.js';
import { Operations } from './ops/operations.js';
import { RetentionPruner, RetentionSettings } from './domain/retention.js';
import { PushSubscriptions } from './domain/push.js';
import type { PushOutbox } from './domain/push-outbox.js';
import { loadVapidKeys, type VapidKeys } from './notify/push/vapid.js';
import { SqlRouteOutbox } from './db/shared/route-outbox.js';
import { SqlRouteRows } from './db/shared/route-rows.js';
import { Routes } from './domain/routes/routes.js';
import { AlertDeliveries } from './domain/routes/alert-deliveries.js';
import type { RouteOutboxStore } from './domain/routes/route-outbox.js';
import type { AlertSuppression } from './domain/routes/alert-events.js';
import { loadSecretBox, type SecretBox } from './lib/secret-box.js';
import { sendRouteTest } from './notify/routes/route-sender.js';
import { routePreview } from './notify/routes/preview.js';
import type { RoutePreviewer } from './domain/routes/route-preview.js';
import { RoutePauseNotices } from './domain/routes/route-pause-notice.js';
import { createRouteTransport, type RouteTransport } from './notify/routes/transport.js';
import type { EngineParts } from './services/engine.js';
import { accountAuth, type AccountAuth } from './services/account-auth.js';
import { sharedRows } from './services/shared-rows.js';
import { heartbeatServices, type HeartbeatServices } from './services/heartbeats.js';
import { sqliteParts, type SqliteParts } from './services/sqlite.js';
import { SIGN_IN_PER_ADDRESS_PER_MINUTE, SIGN_IN_PER_EMAIL_PER_MINUTE } from './domain/auth/sign-in-limits.js';

export type { AuthRows } from './services/engine.js';
export type { AccountAuth } from './services/account-auth.js';

const EVENT_RETENTION_MS = EVENT_RETENTION_DAYS * 24 * 60 * 60 * 1000;

/**
 * Everything the HTTP app, the CLI, the bot and the workers share, wired in one
 * place: each part is built here from the few collaborators it uses, over the
 * engine's row modules (src/services/sqlite.ts or src/services/postgres.ts).
 * Tests build it with a temp DATA_DIR (or a fresh PostgreSQL database) and may
 * swap the clock or the fetcher's resolver.
 */
export interface Services {
  config: Config;
  /** Which database this runs on: the SQLite file in DATA_DIR, or PostgreSQL (DATABASE_URL). */
  engine: 'sqlite' | 'postgres';
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  bus: ChangeBus;
  /** Every read and write of alert rows, attachments, change log and outbox. */
  store: AlertStore & { readonly groups: AlertGroupWrites };
  accounts: Accounts;
  /** The first start's set-up unit (src/bootstrap.ts). */
  firstStart: FirstStartUnit;
  auth: TokenAuthenticator;
  readApi: ReadApi;
  /** Acknowledge, resolve, reopen and snooze by a person; `onStatusChanged` is the hook for other parts. */
  alertActions: AlertActions;
  /** Where an alert went: its route, e-mail and push deliveries (GET /api/alerts/{id}/deliveries). */
  alertDeliveries: AlertDeliveries;
  /** The feed's remembered status filter, per user. */
  feedPreferences: FeedPreferences;
  search: SearchAlerts;
  /** Threads and forum posts of chat-connected channels (GET /api/channels/{channel}/threads). */
  chatThreads: ChatThreads;
  usage: Usage;
  /** Webhook channels by token (cached; on PostgreSQL invalidated across nodes). */
  webhookChannels: WebhookChannels;
  ingest: WebhookIngest;
  acceptAlert: AcceptWebhookAlert;
  media: MediaStore;
  fetcher: MediaFetcher;
  /** A webhook request's files (the transport streams uploads into it; the accept-alert use case stores and fetches the rest). */
  webhookFiles: WebhookFiles;
  avatars: AvatarMirror;
  /** Which channel mirrors which Discord channel. */
  discordLinks: DiscordLinks;
  /** The servers and channels the bot sees, on the node that runs the gateway (the connect form's names). */
  discordDirectory: DiscordDirectory;
  /** Stores chat messages (the Discord bridge's one way in). */
  chatIngest: ChatIngest;
  /** The dashboard's sign-in attempts, per e-mail address and per client address (shared by the nodes on PostgreSQL). */
  signInLimiters: { perEmail: Limiter; perAddress: Limiter };
  /** The dashboard's sessions, sign-in links, passwords, audit log and invitations. */
  accountAuth: AccountAuth;
  /** The account e-mails' outbox (sign-in links, address confirmations), sent by src/notify/account-mail-worker.ts. */
  accountMail: AccountMail;
  /** E-mail preferences per (user, channel) and the recipient rule. */
  notifyPrefs: NotificationPreferences;
  /** Each person's dashboard settings (the feed's density). */
  userSettings: UserSettings;
  /** Quiet hours per person and their digests (src/domain/quiet-hours.ts). */
  quietHours: QuietHoursSettings;
  quietDigests: QuietDigestOutbox;
  /** The same rule read synchronously inside the outbox's store units (fan-out, delivery and digest claims). */
  unitRecipients: UnitRecipientRule;
  /** The live stream (SSE) engine behind GET /api/stream. */
  live: LiveStreams;
  /** Storage health, free-space reserve, readiness, metrics, shutdown state (src/ops/). */
  ops: Operations;
  /** Marks media files no alert references any more as orphaned (after the commit that dropped them); maintenance deletes them after the grace period. */
  releaseMedia(keys: string[]): void;
  /** Media files deleted only after a grace period (MEDIA_ORPHAN_GRACE_HOURS), so database + media backups stay complete. */
  mediaOrphans: MediaOrphans;
  /** One-click unsubscribe links (RFC 8058) and the dashboard links notification e-mails carry. */
  unsubscribe: UnsubscribeLinks;
  /** Results of sessionless buttons (unsubscribe, e-mail actions) shown once after their redirect. */
  browserFlashes: BrowserFlashes;
  /** Single sign-on (docs/sso.md): identities, group mapping, the sealed sign-in state cookie. */
  sso: { signOn: SingleSignOn; sealedState: SealedState };
  /** Silences and maintenance windows (the fan-out reads them itself, in its own transaction). */
  silences: Silences;
  /** Escalation per channel: the policies, and the pass the leader runs (src/notify/escalation-scheduler.ts). */
  escalation: { escalations: Escalations; pass: EscalationPass };
  /** The e-mail and push action links: signed per recipient and alert, 24 h, used once. */
  alertActionLinks: AlertActionLinks;
  /** Retention settings per channel and workspace (the admin CLI) and the pruner the background part runs. */
  retentionSettings: RetentionSettings;
  retention: RetentionPruner;
  /** Web Push: the VAPID keys (generated on first start, kept in app_secrets), the users' subscriptions and the push outbox. */
  push: { vapid: VapidKeys; subscriptions: PushSubscriptions; outbox: PushOutbox };
  /**
   * Outbound routes (docs/routes.md): the use case, the outbox the worker sends from, the key box
   * sealing their targets, the SSRF-guarded transport, and the silence check (`Silences.suppression`).
   */
  routes: {
    routes: Routes; outbox: RouteOutboxStore; box: SecretBox; transport: RouteTransport; suppressed: AlertSuppression; preview: RoutePreviewer;
    /** The e-mail to owners and admins when the worker pauses a route. */
    pauseNotices: RoutePauseNotices;
  };
  /** Heartbeat checks: management, pings, and the timer the leader runs (docs/heartbeats.md). */
  heartbeats: HeartbeatServices;
  /** Whether this node runs the singletons (maintenance, retention, the Discord gateway): always on SQLite, the leader lock's holder on PostgreSQL. */
  leadership: Leadership;
  /** Prunes expired idempotency answers and old stream events, and deletes media orphaned for longer than the grace period. */
  maintenance(): Promise<{ idempotencyKeys: number; events: number; orphanedMedia: number }>;
  /** Stops the live streams and the avatar look-ups, then closes the database (the pool and the node's own connections on PostgreSQL). */
  close(): void | Promise<void>;
}

/** The services of one process on the SQLite file, with its handle and its group commit (tests, benches). */
export type SqliteServices = Omit<Services, SqliteOnly> & Pick<SqliteParts, SqliteOnly>;
type SqliteOnly = 'engine' | 'db' | 'batcher' | 'store' | 'webhookChannels' | 'close';

export interface ServiceOverrides {
  clock?: Clock;
  logger?: Logger;
  fetcher?: Partial<MediaFetcherOptions>;
  live?: Partial<LiveStreamOptions>;
  /** Tests lower the password hashing cost; production always uses OWASP's parameters. */
  scrypt?: ScryptParams;
}

/**
 * The one way to build the service, on either engine: PostgreSQL when DATABASE_URL is set (connect,
 * migrate under the migration lock, load the app secrets), else the SQLite file in DATA_DIR.
 * On SQLite the answer also carries the file's handle and its group commit (see `sqliteServicesOf`).
 */
export async function openServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  if (!config.databaseUrl) {
    const parts = sqliteParts(config.dbFile, clock);
    const services = assemble(config, parts, clock, { ...overrides, logger });
    const sqlite: SqliteServices = { ...services, engine: 'sqlite', db: parts.db, batcher: parts.batcher, store: parts.store, webhookChannels: parts.webhookChannels, close: () => void services.close() };
    return sqlite;
  }
  // Loaded only here: a SQLite service never loads pg and the PostgreSQL store (about 7 MB of idle RSS, docs/benchmarks.md "Memory: where it goes").
  const { postgresParts } = await import('./services/postgres.js');
  const parts = await postgresParts(config.databaseUrl, clock, logger, { poolMax: config.pgPoolMax });
  return assemble(config, parts, clock, { ...overrides, logger });
}

/** The SQLite file's handle and group commit behind services opened on SQLite (backups, the FTS tests, benches); throws on PostgreSQL. */
export function sqliteServicesOf(services: Services): SqliteServices {
  if (services.engine !== 'sqlite' || !('db' in services)) throw new Error('this needs the SQLite file: DATABASE_URL is set (PostgreSQL)');
  return services as SqliteServices;
}

/** The use cases over either engine's parts. */
function assemble(config: Config, parts: EngineParts, clock: Clock, overrides: ServiceOverrides): Services {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const { store, bus } = parts;
  const rows = sharedRows(parts.database);
  const ids = new IdGenerator(() => clock.now());
  ids.seed(store.newestAlertKey());
  const isMediaReferenced = (key: string) => store.isMediaReferenced(key);
  const idempotency = new Idempotency(store.webhook, clock, parts.idempotencyClaims);
  const ops = new Operations({ config, database: parts.probe, reports: store.reports, logger, clock });
  const media: MediaStore = new MediaStore({
    dir: config.mediaDir,
    publicUrl: config.mediaPublicUrl,
    spaceGuard: ops.reserve,
    sharedPin: (key) => rows.mediaOrphanRows.pin(key, clock.now()),
    ...(parts.sharedMediaDir ? { deferRollback: (keys: string[]): Promise<void> => orphans.listForSweep(keys) } : {}),
  });
  const fetcher = createMediaFetcher({
    allowPrivate: config.attachmentFetchAllowPrivate,
    timeoutMs: config.attachmentFetchTimeoutMs,
    ...overrides.fetcher,
  });
  const readApi = new ReadApi(store.reads, clock, (key) => media.urlFor(key), (userId, channelIds) => bus.emit('read-state', { userId, channelIds }));
  const search = new SearchAlerts(store.search, store.reads, readApi);
  const chatThreads = new ChatThreads(readApi, store.chat);
  const alertActions = new AlertActions({
    reads: store.reads,
    lifecycle: store.lifecycle,
    userName: async (userId) => (await rows.accountRows.user(userId))?.name,
    clock,
    bus,
  });
  const apiBudget = parts.apiBudget?.(config.rateLimitPerMinute) ?? { limiter: parts.limiter('api', config.rateLimitPerMinute) };
  const auth = new TokenAuthenticator(rows.tokenRows, config.tokenPrefix, clock, apiBudget);
  const live = new LiveStreams(
    { changes: store.changes, alerts: store.reads, bus, readApi, stillAuthorized: (p) => auth.stillAuthorized(p) },
    overrides.live,
  );
  const orphans = new MediaOrphans(rows.mediaOrphanRows, media, clock, config.mediaOrphanGraceMs, isMediaReferenced);
  ops.watch({ batcher: parts.batcher, live });
  const releaseMedia = (keys: string[]) => {
    orphans.release(keys).catch((err: unknown) => logger.warn({ err }, 'releasing unreferenced media failed'));
  };
  const { webhookChannels } = parts;
  const ingest = new WebhookIngest({ store: store.webhook, ids, clock, bus, releaseMedia });
  const avatars = new AvatarMirror({
    enabled: config.avatarFetch,
    baseUrl: config.avatarBaseUrl,
    // Its own fetcher: the same SSRF rules, the avatar's shorter timeout.
    fetcher: createMediaFetcher({ allowPrivate: config.attachmentFetchAllowPrivate, timeoutMs: config.avatarTimeoutMs, ...overrides.fetcher }),
    media,
    clock,
    logger,
    sink: {
      setAvatar: async (alertId, url) => {
        try {
          if (await store.webhook.setActorAvatar(alertId, url, clock.now())) bus.emit('alert-events');
        } catch (err) {
          logger.warn({ err }, 'storing avatar failed');
        }
      },
    },
  });
  const formats = new FormatIngest({ store: store.groups, ids, clock, bus, releaseMedia });
  const acceptAlert = new AcceptWebhookAlert({
    channels: webhookChannels,
    limiter: parts.limiter('webhook', config.webhookRateLimitPerMinute),
    idempotency,
    ingest,
    formats,
    avatars,
  });
  const accounts = new Accounts(rows.accountRows, ids, clock, config.tokenPrefix);
  accounts.onChannelsChanged(() => webhookChannels.invalidate());
  const discordLinks = new DiscordLinks(rows.discordLinkRows, accounts, clock);
  const secretBox = loadSecretBox({ secretsKey: config.secretsKey, dataDir: config.dataDir, create: true });
  if (secretBox.unavailable) logger.error(`outbound routes are disabled: ${secretBox.unavailable}`);
  const routeTransport = createRouteTransport({ allowPrivate: config.routesAllowPrivate, now: () => clock.now() });
  const routes = new Routes(new SqlRouteRows(parts.database), secretBox, ids, clock, config.routesAllowPrivate, async (route, target) =>
    sendRouteTest(routeTransport, { route, target, channelName: (await accounts.requireChannel(route.channelId)).name, publicUrl: config.publicUrl, now: clock.now() }),
  );
  const routeOutbox = new SqlRouteOutbox(parts.database);
  const accountMail = new AccountMail(rows.accountMailRows, parts.appSecrets, ids, clock, bus);
  const silences = new Silences(new SqlSilenceRows(parts.database), accounts, ids, clock);
  const escalationRows = new SqlEscalationRows(parts.database);
  const chatIngest = new ChatIngest({ store: store.chat, ids, clock, bus, media, fetcher, logger, releaseMedia, isMediaReferenced });
  return {
    config,
    engine: parts.engine,
    clock,
    ids,
    logger,
    bus,
    store,
    accounts,
    firstStart: parts.firstStart,
    auth,
    readApi,
    alertActions,
    feedPreferences: new FeedPreferences(new SqlFeedPreferenceRows(parts.database), clock),
    search,
    chatThreads,
    usage: new Usage(rows.usageRows),
    webhookChannels,
    ingest,
    acceptAlert,
    media,
    fetcher,
    webhookFiles: new MediaRequestFiles(media, fetcher, isMediaReferenced),
    avatars,
    discordLinks,
    discordDirectory: new DiscordDirectory(),
    chatIngest,
    signInLimiters: {
      perEmail: parts.limiter('sign-in-email', SIGN_IN_PER_EMAIL_PER_MINUTE),
      perAddress: parts.limiter('sign-in-address', SIGN_IN_PER_ADDRESS_PER_MINUTE),
    },
    accountAuth: accountAuth(rows.authRows, parts.database, accounts, ids, clock, config, overrides.scrypt),
    accountMail,
    releaseMedia,
    mediaOrphans: orphans,
    unsubscribe: new UnsubscribeLinks(parts.appSecrets, clock, config.publicUrl),
    browserFlashes: new BrowserFlashes(parts.appSecrets, clock),
    sso: { signOn: new SingleSignOn(new SqlSsoRows(parts.database), accounts, new AuditLog(rows.authRows.audit, clock), clock), sealedState: new SealedState(parts.appSecrets, clock) },
    alertActionLinks: new AlertActionLinks(parts.appSecrets, clock, config.publicUrl, new SqlActionLinkUses(parts.database)),
    push: {
      vapid: loadVapidKeys(parts.appSecrets, clock),
      subscriptions: new PushSubscriptions(rows.pushSubscriptionRows, ids, clock, config.pushAllowPrivate),
      outbox: parts.pushOutbox,
    },
    alertDeliveries: new AlertDeliveries({
      reads: store.reads,
      outbox: routeOutbox,
      roleOf: async (workspaceId, userId) => (await accounts.workspacesOf(userId)).find((w) => w.id === workspaceId)?.role,
    }),
    routes: {
      routes, outbox: routeOutbox, box: secretBox, transport: routeTransport, suppressed: silences.suppression,
      pauseNotices: new RoutePauseNotices({ accounts, mail: accountMail, clock, publicUrl: config.publicUrl, mailEnabled: Boolean(config.smtpUrl) }),
      preview: (kind, channel) => routePreview(kind, channel, { publicUrl: config.publicUrl, now: clock.now(), mediaUrl: (key) => media.urlFor(key) }),
    },
    retentionSettings: new RetentionSettings(rows.retentionRows, accounts),
    retention: new RetentionPruner({ store: store.retention, settings: rows.retentionRows, clock, bus, releaseMedia }),
    notifyPrefs: new NotificationPreferences(rows.preferenceRows, clock),
    userSettings: new UserSettings(new SqlUserSettingsRows(parts.database), clock),
    quietHours: new QuietHoursSettings(new SqlQuietHoursRows(parts.database), clock),
    quietDigests: new SqlQuietDigests(parts.database),
    silences,
    escalation: { escalations: new Escalations(escalationRows, accounts, clock), pass: new EscalationPass(escalationRows, clock, logger) },
    heartbeats: heartbeatServices({ database: parts.database, formats, limiter: (scope, n) => parts.limiter(scope, n), ids, clock, logger, bus }),
    unitRecipients: parts.unitRecipients,
    leadership: parts.leadership,
    live,
    ops,
    maintenance: async () => ({
      idempotencyKeys: await idempotency.prune(),
      events: await store.changes.pruneEvents(clock.now() - EVENT_RETENTION_MS),
      orphanedMedia: await orphans.sweep(),
    }),
    close: () => {
      avatars.stop();
      live.closeAll();
      void routeTransport.close().catch(() => {});
      return parts.close();
    },
  };
}
