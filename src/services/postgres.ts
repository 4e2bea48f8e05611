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
import { countingTokenLookUp } from '../db/pg/token-budget.js';
import { PgWebhookChannels } from '../db/pg/webhook-channels.js';
import { SqlAppSecretRows } from '../db/shared/auth-rows.js';
import { LoadedUnitRecipients } from '../db/shared/preference-rows.js';
import { SqlPushOutbox } from '../db/shared/push-outbox.js';
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
      firstStart: new PgFirstStart(pool),
      unitRecipients: recipients,
      appSecrets,
      pushOutbox: new SqlPushOutbox(database, { recipients }),
      webhookChannels,
      limiter: (scope, perMinute) => new PgRateLimiter(pool, scope, perMinute, clock),
      apiBudget: (perMinute) => {
        const limiter = new PgRateLimiter(pool, 'api', perMinute, clock);
        return { limiter, lookUp: countingTokenLookUp(pool, limiter) };
      },
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
