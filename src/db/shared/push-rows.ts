import type { NewPushSubscription, PushDevice, PushSubscriptionRows } from '../../domain/push.js';
import { isUniqueViolation } from './errors.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { perEngine, statement } from './statement.js';

type Subscribed = { id: string; created: boolean } | 'limit';

/** PostgreSQL holds the subscribing user's row, so two nodes adding devices for one user count in turn (SQLite: one writer already). */
const LOCK_SUBSCRIBER = perEngine<{ userId: string }>({ sqlite: null, pg: 'SELECT 1 FROM users WHERE id = :userId FOR NO KEY UPDATE' });
const BY_ENDPOINT = statement<{ endpoint: string }, { id: string; userId: string }>('SELECT id, user_id AS "userId" FROM push_subscriptions WHERE endpoint = :endpoint');
const COUNT = statement<{ userId: string }, { count: number }>('SELECT count(*) AS count FROM push_subscriptions WHERE user_id = :userId');
const REPLACE = statement<NewPushSubscription & { existingId: string }>(
  'UPDATE push_subscriptions SET user_id = :userId, p256dh = :p256dh, auth = :auth, device = :device, created_at = :createdAt, last_error = NULL WHERE id = :existingId',
);
const INSERT = statement<NewPushSubscription>(
  'INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, device, created_at) VALUES (:id, :userId, :endpoint, :p256dh, :auth, :device, :createdAt)',
);
const LIST = statement<{ userId: string }, PushDevice>(
  `SELECT id, device, created_at AS "createdAt", last_success_at AS "lastSuccessAt", last_error AS "lastError"
   FROM push_subscriptions WHERE user_id = :userId ORDER BY created_at, id`,
);
const REMOVE = statement<{ userId: string; id: string }>('DELETE FROM push_subscriptions WHERE user_id = :userId AND id = :id');
const REMOVE_ENDPOINT = statement<{ userId: string; endpoint: string }>('DELETE FROM push_subscriptions WHERE user_id = :userId AND endpoint = :endpoint');

/** The push_subscriptions rows: one per (user, browser), on either engine. */
export class SqlPushSubscriptionRows implements PushSubscriptionRows {
  constructor(private readonly database: SqlExecutor) {}

  /**
   * Two PostgreSQL nodes storing one new endpoint at once (one browser, two users): the unique key
   * makes the second INSERT wait for the first's COMMIT and fail; run once more, it finds the row
   * and replaces it, as SQLite's single writer does the first time.
   */
  async upsert(row: NewPushSubscription, max: number): Promise<Subscribed> {
    try {
      return await this.database.transaction((tx) => upsertSteps(tx, row, max));
    } catch (err) {
      if (!isUniqueViolation(err, 'push_subscriptions_endpoint_unique')) throw err;
      return this.database.transaction((tx) => upsertSteps(tx, row, max));
    }
  }

  list(userId: string): Promise<PushDevice[]> {
    return this.database.all(LIST, { userId });
  }

  async remove(userId: string, id: string): Promise<boolean> {
    return (await this.database.run(REMOVE, { userId, id })) > 0;
  }

  async removeEndpoint(userId: string, endpoint: string): Promise<boolean> {
    return (await this.database.run(REMOVE_ENDPOINT, { userId, endpoint })) > 0;
  }
}

function* upsertSteps(tx: TransactionSteps, row: NewPushSubscription, max: number): Step<Subscribed> {
  yield* tx.run(LOCK_SUBSCRIBER, { userId: row.userId });
  const existing = yield* tx.get(BY_ENDPOINT, { endpoint: row.endpoint });
  const full = ((yield* tx.value(COUNT, { userId: row.userId })) ?? 0) >= max;
  if (existing && existing.userId !== row.userId && full) return 'limit';
  if (existing) {
    // The same browser again (new keys, or another user signed in on it): one row per endpoint.
    yield* tx.run(REPLACE, { ...row, existingId: existing.id });
    return { id: existing.id, created: false };
  }
  if (full) return 'limit';
  yield* tx.run(INSERT, row);
  return { id: row.id, created: true };
}
