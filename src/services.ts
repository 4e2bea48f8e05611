import type { Config } from './config.js';
import { openDb, type Db } from './db/connection.js';
import { WriteBatcher } from './db/write-batcher.js';
import { Accounts } from './domain/accounts.js';
import { ChangeBus, ChangeRecorder } from './domain/changes.js';
import { Idempotency } from './domain/idempotency.js';
import { ReadApi } from './domain/read-api.js';
import { TokenAuthenticator } from './domain/tokens.js';
import { Usage } from './domain/usage.js';
import { AvatarLookup } from './domain/webhook/avatars.js';
import { WebhookIngest } from './domain/webhook/ingest.js';
import { WebhookBodyReader } from './domain/webhook/received-body.js';
import { parseJson, readBodyCapped } from './http/body.js';
import { RateLimiter } from './http/rate-limit.js';
import { systemClock, type Clock } from './lib/clock.js';
import { IdGenerator } from './lib/ids.js';
import { createLogger, type Logger } from './lib/logger.js';
import { createMediaFetcher, type MediaFetcher, type MediaFetcherOptions } from './media/fetcher.js';
import { MediaStore } from './media/store.js';
import { LiveStreams, type LiveStreamOptions } from './notify/live-stream.js';
import { NotificationPreferences } from './notify/preferences.js';
import { Operations } from './ops/operations.js';

/** JSON webhook bodies may carry base64 attachments; bigger files go through multipart or a URL. */
const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;
/** How long the live stream's change log is kept for Last-Event-ID resumes. */
const EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Everything the HTTP app, the CLI, the bot and the workers share, wired in one
 * place. Tests build it with a temp DATA_DIR and may swap the clock or the
 * fetcher's resolver.
 */
export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  bus: ChangeBus;
  batcher: WriteBatcher;
  changes: ChangeRecorder;
  accounts: Accounts;
  auth: TokenAuthenticator;
  readApi: ReadApi;
  usage: Usage;
  idempotency: Idempotency;
  ingest: WebhookIngest;
  media: MediaStore;
  fetcher: MediaFetcher;
  webhookBody: WebhookBodyReader;
  avatars: AvatarLookup;
  /** Per webhook channel, so one runaway sender cannot monopolise the service. */
  webhookLimiter: RateLimiter;
  /** E-mail preferences per (user, channel) and the recipient rule. */
  notifyPrefs: NotificationPreferences;
  /** The live stream (SSE) engine behind GET /api/stream. */
  live: LiveStreams;
  /** Storage health, free-space reserve, readiness, metrics, shutdown state (src/ops/). */
  ops: Operations;
  /** Deletes media files that no alert references any more (after the commit that dropped them). */
  releaseMedia(keys: string[]): void;
  /** Whether any alert still uses this media key. */
  isMediaReferenced(key: string): boolean;
  /** Prunes expired idempotency answers and old stream events. */
  maintenance(): { idempotencyKeys: number; events: number };
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
  const ids = new IdGenerator(() => clock.now());
  // Index lookups only: the newest alert id, and the newest activity key of each channel.
  ids.seed(
    db.sqlite
      .prepare(
        `SELECT max(k) FROM (SELECT max(id) AS k FROM alerts
         UNION ALL SELECT (SELECT max(activity_key) FROM alerts a WHERE a.channel_id = c.id) FROM channels c)`,
      )
      .pluck()
      .get() as string | null,
  );
  const bus = new ChangeBus();
  const batcher = new WriteBatcher(db.sqlite);
  const changes = new ChangeRecorder(db.sqlite);
  const usage = new Usage(db.sqlite);
  const idempotency = new Idempotency(db.sqlite, clock);
  const ops = new Operations({ config, sqlite: db.sqlite, logger, clock });
  const media = new MediaStore({ dir: config.mediaDir, publicUrl: config.mediaPublicUrl, spaceGuard: ops.reserve });
  const fetcher = createMediaFetcher({
    allowPrivate: config.attachmentFetchAllowPrivate,
    timeoutMs: config.attachmentFetchTimeoutMs,
    ...overrides.fetcher,
  });
  const readApi = new ReadApi(db.sqlite, clock, (key) => media.urlFor(key));
  const live = new LiveStreams(db.sqlite, bus, readApi, overrides.live);
  ops.watch({ batcher, live });
  const referenced = db.sqlite.prepare('SELECT 1 FROM alert_attachments WHERE media_key = ? LIMIT 1');
  const isMediaReferenced = (key: string) => referenced.get(key) !== undefined;
  const releaseMedia = (keys: string[]) => {
    try {
      media.removeUnreferenced(keys, isMediaReferenced);
    } catch (err) {
      logger.warn({ err }, 'removing unreferenced media failed');
    }
  };
  const ingest = new WebhookIngest(db.sqlite, batcher, ids, clock, changes, usage, idempotency, bus, releaseMedia);
  const avatars = new AvatarLookup(config.avatarBaseUrl, config.avatarTimeoutMs, clock, logger, {
    setAvatar: (alertId, url) => {
      ingest.storeActorAvatar(alertId, url).catch((err) => logger.warn({ err }, 'storing avatar failed'));
    },
  });
  const accounts = new Accounts(db, ids, clock, config.tokenPrefix);
  accounts.onChannelsChanged(() => ingest.invalidateChannels());
  return {
    config,
    db,
    clock,
    ids,
    logger,
    bus,
    batcher,
    changes,
    accounts,
    auth: new TokenAuthenticator(db.sqlite, config.tokenPrefix, clock),
    readApi,
    usage,
    idempotency,
    ingest,
    media,
    fetcher,
    webhookBody: new WebhookBodyReader(media, fetcher, { maxJsonBytes: MAX_JSON_BODY_BYTES }, readBodyCapped, parseJson, isMediaReferenced),
    avatars,
    webhookLimiter: new RateLimiter(config.webhookRateLimitPerMinute, clock),
    releaseMedia,
    isMediaReferenced,
    notifyPrefs: new NotificationPreferences(db.sqlite, clock),
    live,
    ops,
    maintenance: () => ({
      idempotencyKeys: idempotency.prune(),
      events: changes.prune(clock.now() - EVENT_RETENTION_MS),
    }),
    close: () => {
      avatars.stop();
      live.closeAll();
      batcher.flush();
      db.close();
    },
  };
}
