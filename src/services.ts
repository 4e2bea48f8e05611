import type { Config } from './config.js';
import { SqliteAlertStore } from './db/alert-store/index.js';
import { openDb, type Db } from './db/connection.js';
import { SqliteAppSecretRows } from './db/auth-rows.js';
import { SqliteDiscordLinkRows } from './db/discord-link-rows.js';
import { SqliteTokenRows } from './db/token-rows.js';
import { SqliteProbe } from './db/probe.js';
import { SqlitePreferenceRows } from './db/preference-rows.js';
import { SqliteUsageRows } from './db/usage-rows.js';
import { SqliteWebhookChannels } from './db/webhook-channels.js';
import { WriteBatcher } from './db/write-batcher.js';
import { Accounts } from './domain/accounts.js';
import { SqliteAccountRows, SqliteFirstStart } from './db/account-rows.js';
import type { FirstStartUnit } from './domain/account-rows.js';
import type { AlertStore } from './domain/alert-store.js';
import { ChangeBus } from './domain/changes.js';
import { ChatIngest } from './domain/chat/ingest.js';
import { DiscordLinks } from './domain/chat/links.js';
import { Idempotency } from './domain/idempotency.js';
import { ReadApi } from './domain/read-api.js';
import { SearchAlerts } from './domain/search.js';
import { TokenAuthenticator } from './domain/tokens.js';
import { Usage } from './domain/usage.js';
import { AcceptWebhookAlert } from './domain/webhook/accept-alert.js';
import { AvatarLookup } from './domain/webhook/avatars.js';
import { WebhookIngest } from './domain/webhook/ingest.js';
import { FormatIngest } from './domain/webhook/ingest-formats.js';
import { WebhookBodyReader } from './http/webhook-body.js';
import { systemClock, type Clock } from './lib/clock.js';
import { IdGenerator } from './lib/ids.js';
import { createLogger, type Logger } from './lib/logger.js';
import { RateLimiter } from './lib/rate-limiter.js';
import { createMediaFetcher, type MediaFetcher, type MediaFetcherOptions } from './media/fetcher.js';
import { MediaStore } from './media/store.js';
import { EVENT_RETENTION_DAYS, LiveStreams, type LiveStreamOptions } from './notify/live-stream.js';
import { NotificationPreferences, type UnitRecipientRule } from './notify/preferences.js';
import { MediaOrphans } from './ops/media-orphans.js';
import { UnsubscribeLinks } from './domain/auth/unsubscribe-links.js';
import { Operations } from './ops/operations.js';
import { SqliteRetentionSettings } from './db/retention-settings.js';
import { RetentionPruner, RetentionSettings } from './domain/retention.js';
import { SqlitePushOutbox, SqlitePushSubscriptionRows } from './db/push-rows.js';
import { PushSubscriptions } from './domain/push.js';
import { loadVapidKeys, type VapidKeys } from './notify/push/vapid.js';

/** JSON webhook bodies may carry base64 attachments; bigger files go through multipart or a URL. */
const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;
const EVENT_RETENTION_MS = EVENT_RETENTION_DAYS * 24 * 60 * 60 * 1000;

/**
 * Everything the HTTP app, the CLI, the bot and the workers share, wired in one
 * place: each part is built here from the few collaborators it uses. Tests
 * build it with a temp DATA_DIR and may swap the clock or the fetcher's resolver.
 */
export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  bus: ChangeBus;
  batcher: WriteBatcher;
  /** Every read and write of alert rows, attachments, change log and outbox. */
  store: AlertStore;
  accounts: Accounts;
  /** The first start's set-up unit (src/bootstrap.ts). */
  firstStart: FirstStartUnit;
  auth: TokenAuthenticator;
  readApi: ReadApi;
  search: SearchAlerts;
  usage: Usage;
  /** Webhook channels by token (cached). */
  webhookChannels: SqliteWebhookChannels;
  ingest: WebhookIngest;
  acceptAlert: AcceptWebhookAlert;
  media: MediaStore;
  fetcher: MediaFetcher;
  webhookBody: WebhookBodyReader;
  avatars: AvatarLookup;
  /** Which channel mirrors which Discord channel. */
  discordLinks: DiscordLinks;
  /** Stores chat messages (the Discord bridge's one way in). */
  chatIngest: ChatIngest;
  /** Per read-API token. */
  apiLimiter: RateLimiter;
  /** E-mail preferences per (user, channel) and the recipient rule. */
  notifyPrefs: NotificationPreferences;
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
  /** Retention settings per channel and workspace (the admin CLI) and the pruner the background part runs. */
  retentionSettings: RetentionSettings;
  retention: RetentionPruner;
  /** Prunes expired idempotency answers and old stream events, and deletes media orphaned for longer than the grace period. */
  /** Web Push: the VAPID keys (generated on first start, kept in app_secrets), the users' subscriptions and the push outbox. */
  push: { vapid: VapidKeys; subscriptions: PushSubscriptions; outbox: SqlitePushOutbox };
  maintenance(): Promise<{ idempotencyKeys: number; events: number; orphanedMedia: number }>;
  close(): void;
}

export interface ServiceOverrides {
  clock?: Clock;
  logger?: Logger;
  fetcher?: Partial<MediaFetcherOptions>;
  live?: Partial<LiveStreamOptions>;
}

export function createServices(config: Config, overrides: ServiceOverrides = {}): Services {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db = openDb(config.dbFile);
  const bus = new ChangeBus();
  const batcher = new WriteBatcher(db.sqlite);
  const store = new SqliteAlertStore(db.sqlite, batcher);
  // Alerts a previous run stored but had not indexed for search yet (the store schedules the rest itself).
  store.searchIndexer.catchUp();
  const ids = new IdGenerator(() => clock.now());
  ids.seed(store.newestAlertKey());
  const isMediaReferenced = (key: string) => store.isMediaReferenced(key);
  const idempotency = new Idempotency(store.webhook, clock);
  const ops = new Operations({ config, database: new SqliteProbe(db.sqlite), reports: store.reports, logger, clock });
  const media = new MediaStore({ dir: config.mediaDir, publicUrl: config.mediaPublicUrl, spaceGuard: ops.reserve });
  const fetcher = createMediaFetcher({
    allowPrivate: config.attachmentFetchAllowPrivate,
    timeoutMs: config.attachmentFetchTimeoutMs,
    ...overrides.fetcher,
  });
  const readApi = new ReadApi(store.reads, clock, (key) => media.urlFor(key), (userId, channelIds) => bus.emit('read-state', { userId, channelIds }));
  const search = new SearchAlerts(store.search, store.reads, readApi);
  const auth = new TokenAuthenticator(new SqliteTokenRows(db.sqlite), config.tokenPrefix, clock);
  const live = new LiveStreams(
    { changes: store.changes, alerts: store.reads, bus, readApi, stillAuthorized: (p) => auth.stillAuthorized(p) },
    overrides.live,
  );
  const orphans = new MediaOrphans(db.sqlite, media, clock, config.mediaOrphanGraceMs, isMediaReferenced);
  ops.watch({ batcher, live });
  const releaseMedia = (keys: string[]) => {
    try {
      orphans.release(keys);
    } catch (err) {
      logger.warn({ err }, 'releasing unreferenced media failed');
    }
  };
  const webhookChannels = new SqliteWebhookChannels(db.sqlite);
  const ingest = new WebhookIngest({ store: store.webhook, ids, clock, bus, releaseMedia });
  const avatars = new AvatarLookup(config.avatarBaseUrl, config.avatarTimeoutMs, clock, logger, {
    setAvatar: async (alertId, url) => {
      try {
        if (await store.webhook.setActorAvatar(alertId, url, clock.now())) bus.emit('alert-events');
      } catch (err) {
        logger.warn({ err }, 'storing avatar failed');
      }
    },
  });
  const acceptAlert = new AcceptWebhookAlert({
    channels: webhookChannels,
    limiter: new RateLimiter(config.webhookRateLimitPerMinute, clock),
    idempotency,
    ingest,
    formats: new FormatIngest({ store: store.groups, ids, clock, bus, releaseMedia }),
    avatars,
  });
  const accounts = new Accounts(new SqliteAccountRows(db), ids, clock, config.tokenPrefix);
  accounts.onChannelsChanged(() => webhookChannels.invalidate());
  const discordLinkRows = new SqliteDiscordLinkRows(db.sqlite);
  const discordLinks = new DiscordLinks(discordLinkRows, accounts, clock);
  const chatIngest = new ChatIngest({
    store: store.chat,
    ids,
    clock,
    bus,
    media,
    fetcher,
    logger,
    releaseMedia,
    isMediaReferenced,
  });
  const retentionRows = new SqliteRetentionSettings(db.sqlite);
  const preferenceRows = new SqlitePreferenceRows(db.sqlite);
  const appSecretRows = new SqliteAppSecretRows(db.sqlite);
  return {
    config,
    db,
    clock,
    ids,
    logger,
    bus,
    batcher,
    store,
    accounts,
    firstStart: new SqliteFirstStart(db),
    auth,
    readApi,
    search,
    usage: new Usage(new SqliteUsageRows(db.sqlite)),
    webhookChannels,
    ingest,
    acceptAlert,
    media,
    fetcher,
    webhookBody: new WebhookBodyReader(media, fetcher, { maxJsonBytes: MAX_JSON_BODY_BYTES }, isMediaReferenced),
    avatars,
    discordLinks,
    chatIngest,
    apiLimiter: new RateLimiter(config.rateLimitPerMinute, clock),
    releaseMedia,
    mediaOrphans: orphans,
    unsubscribe: new UnsubscribeLinks(appSecretRows, clock, config.publicUrl),
    push: {
      vapid: loadVapidKeys(appSecretRows, clock),
      subscriptions: new PushSubscriptions(new SqlitePushSubscriptionRows(db.sqlite), ids, clock, config.pushAllowPrivate),
      outbox: new SqlitePushOutbox(db.sqlite),
    },
    retentionSettings: new RetentionSettings(retentionRows, accounts),
    retention: new RetentionPruner({ store: store.retention, settings: retentionRows, clock, bus, releaseMedia }),
    notifyPrefs: new NotificationPreferences(preferenceRows, clock),
    unitRecipients: preferenceRows,
    live,
    ops,
    maintenance: async () => ({
      idempotencyKeys: await idempotency.prune(),
      events: await store.changes.pruneEvents(clock.now() - EVENT_RETENTION_MS),
      orphanedMedia: orphans.sweep(),
    }),
    close: () => {
      avatars.stop();
      live.closeAll();
      batcher.flush();
      store.searchIndexer.stop();
      db.close();
    },
  };
}
