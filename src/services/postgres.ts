import { ACCOUNT_MAIL_SECRET_NAME } from '../domain/auth/account-mail.js';
import { PgAlertStore } from '../db/pg/alert-store/index.js';
import { PgIdempotencyClaims } from '../db/pg/alert-store/idempotency-claims.js';
import { ClusterChangeBus } from '../db/pg/cluster-bus.js';
import { openPg, type PgDb } from '../db/pg/connection.js';
import { PgExecutor } from '../db/pg/executor.js';
import { PgFirstStart } from '../db/pg/first-start.js';
import { PgLeaderLock } from '../db/pg/leader.js';
import { LEADER_LOCK } from '../db/shared/advisory-locks.js';
import { PgNotifyBus } from '../db/pg/notify-bus.js';
import { PgProbe } from '../db/pg/probe.js';
import { PgRateLimiter } from '../db/pg/rate-limits.js';
import { SqlUsageRows } from '../db/shared/usage-rows.js';
import { PgWebhookChannels } from '../db/pg/webhook-channels.js';
import { SqlAccountMailRows } from '../db/shared/account-mail-rows.js';
import { SqlAccountRows } from '../db/shared/account-rows.js';
import { SqlAppSecretRows, SqlAuditRows, SqlPasswordRows, SqlSessionRows, SqlSignInLinkRows } from '../db/shared/auth-rows.js';
import { SqlDiscordLinkRows } from '../db/shared/discord-link-rows.js';
import { SqlInvitationRows } from '../db/shared/invitation-rows.js';
import { SqlMediaOrphanRows } from '../db/shared/media-orphan-rows.js';
import { LoadedUnitRecipients, SqlPreferenceRows } from '../db/shared/preference-rows.js';
import { SqlPushOutbox } from '../db/shared/push-outbox.js';
import { SqlPushSubscriptionRows } from '../db/shared/push-rows.js';
import { SqlRetentionSettings } from '../db/shared/retention-settings.js';
import { SqlTokenRows } from '../db/shared/token-rows.js';
import { loadAppSecrets, newAppSecretValue, UNSUBSCRIBE_SECRET_NAME } from '../domain/auth/app-secrets.js';
import { ALERT_ACTION_SECRET_NAME } from '../domain/alert-action-links.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { LeadershipSignal } from '../lib/singletons.js';
import { newVapidKeysValue, VAPID_SECRET_NAME } from '../notify/push/vapid.js';
import type { EngineParts } from './engine.js';

/** The PostgreSQL engine's parts also expose the pool (the CLI, tests) and the node's dedicated connections. */
export interface PostgresParts extends EngineParts {
  engine: 'postgres';
  pg: PgDb;
  notify: PgNotifyBus;
  leader: PgLeaderLock;
  close(): Promise<void>;
}

export interface PostgresOptions {
  /** Pool size (PG_POOL_MAX); default 10. */
  poolMax?: number;
  /** How often a follower tries the leader lock; default 2 s. */
  leaderIntervalMs?: number;
}

/**
 * A node of a cluster on one PostgreSQL database: connects, applies pending migrations under the
 * migration lock (several nodes starting together migrate once), loads the app secrets (created
 * by the first node, read by all), then builds the row modules over the pool. Three connections
 * of its own, outside the pool, hold session state (so `url` must reach PostgreSQL directly or
 * through a session-mode pooler): LISTEN (the notify bus), the leader lock and the Idempotency-Key
 * claims.
 */
export async function postgresParts(url: string, clock: Clock, logger: Logger, opts: PostgresOptions = {}): Promise<PostgresParts> {
  const db = await openPg(url, {
    max: opts.poolMax,
    onMigrated: (m) => logger.info({ applied: m.applied, total: m.total }, m.applied ? 'PostgreSQL migrations applied' : 'PostgreSQL schema up to date'),
  });
  const { pool } = db;
  const database = new PgExecutor(pool);
  const notify = new PgNotifyBus({ url, pool });
  const leadership = new LeadershipSignal(false);
  const leader = new PgLeaderLock({ url, key: LEADER_LOCK, intervalMs: opts.leaderIntervalMs, onChange: (l) => leadership.set(l) });
  const claims = new PgIdempotencyClaims(url);
  const closeAll = async () => {
    await leader.stop();
    await notify.stop();
    await claims.close();
    await db.close();
  };
  try {
    const appSecrets = await loadAppSecrets(
      new SqlAppSecretRows(database),
      { [UNSUBSCRIBE_SECRET_NAME]: newAppSecretValue, [VAPID_SECRET_NAME]: newVapidKeysValue, [ACCOUNT_MAIL_SECRET_NAME]: newAppSecretValue, [ALERT_ACTION_SECRET_NAME]: newAppSecretValue },
      clock.now(),
    );
    const recipients = new LoadedUnitRecipients();
    const store = await PgAlertStore.open(pool, recipients);
    const bus = new ClusterChangeBus();
    // Subscribed before the bus connects, so they listen from its first connection.
    bus.attach(notify);
    const webhookChannels = new PgWebhookChannels(database, notify);
    await notify.start();
    leader.start();
    return {
      engine: 'postgres',
      database,
      sharedMediaDir: true,
      pg: db,
      notify,
      leader,
      store,
      bus,
      probe: new PgProbe(pool),
      accountRows: new SqlAccountRows(database),
      firstStart: new PgFirstStart(pool),
      tokenRows: new SqlTokenRows(database),
      usageRows: new SqlUsageRows(database),
      discordLinkRows: new SqlDiscordLinkRows(database),
      preferenceRows: new SqlPreferenceRows(database),
      unitRecipients: recipients,
      retentionRows: new SqlRetentionSettings(database),
      appSecrets,
      pushSubscriptionRows: new SqlPushSubscriptionRows(database),
      pushOutbox: new SqlPushOutbox(database, { recipients }),
      authRows: {
        sessions: new SqlSessionRows(database),
        links: new SqlSignInLinkRows(database),
        passwords: new SqlPasswordRows(database),
        audit: new SqlAuditRows(database),
        invitations: new SqlInvitationRows(database),
      },
      accountMailRows: new SqlAccountMailRows(database),
      mediaOrphanRows: new SqlMediaOrphanRows(database),
      webhookChannels,
      limiter: (scope, perMinute) => new PgRateLimiter(pool, scope, perMinute, clock),
      idempotencyClaims: claims,
      batcher: store.webhook.batcher,
      leadership,
      close: async () => {
        bus.detach();
        await closeAll();
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
