import pg from 'pg';
import { LeasedSends } from './leased-sends.js';
import { InOrder } from './in-order.js';
import type { AlertRow } from '../../domain/alert-store.js';
import type { NewPushSubscription, PushDevice, PushSubscriptionRows } from '../../domain/push.js';
import type { PushClaimDecision, PushClaimInput, PushDeliveryRow, PushEndpoint, PushFloodStep, PushOutbox, PushTarget, PushWindow } from '../../notify/push/ports.js';
import { channelOf, lockFloodWindow } from './alert-store/outbox.js';
import { PG_ALERT_COLUMNS } from './alert-store/rows.js';
import { inTransaction } from './transaction.js';
import type { LoadedUnitRecipients } from '../shared/preference-rows.js';
import { stepsOn } from './executor.js';

const UNIQUE_VIOLATION = '23505';

/**
 * How long a push may stay `sending` before `recoverInterrupted` takes it for one whose node died
 * mid-request: far beyond the request's own timeout (src/notify/push/transport.ts, 10 s), so a
 * live node's request is never taken from it.
 */
export const PUSH_SEND_LEASE_MS = 5 * 60_000;

/**
 * The push_subscriptions rows on PostgreSQL (test/cluster/push-rows-contract.test.ts runs the
 * SQLite cases here too). An upsert holds the subscribing user's row `FOR NO KEY UPDATE`, so two
 * nodes adding devices for one user count in turn and the limit holds.
 */
export class PgPushSubscriptionRows implements PushSubscriptionRows {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Two nodes storing one new endpoint at once (one browser, two users): the unique key makes the
   * second INSERT wait for the first's COMMIT and fail; run once more, it finds the row and
   * replaces it, as on SQLite.
   */
  async upsert(row: NewPushSubscription, max: number): Promise<{ id: string; created: boolean } | 'limit'> {
    try {
      return await this.upsertUnit(row, max);
    } catch (err) {
      if (!(err instanceof pg.DatabaseError && err.code === UNIQUE_VIOLATION && err.constraint === 'push_subscriptions_endpoint_unique')) throw err;
      return this.upsertUnit(row, max);
    }
  }

  private upsertUnit(row: NewPushSubscription, max: number): Promise<{ id: string; created: boolean } | 'limit'> {
    return inTransaction(this.pool, async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [row.userId]);
      const existing = (await tx.query<{ id: string; userId: string }>('SELECT id, user_id AS "userId" FROM push_subscriptions WHERE endpoint = $1', [row.endpoint])).rows[0];
      const count = (await tx.query<{ n: number }>('SELECT count(*) AS n FROM push_subscriptions WHERE user_id = $1', [row.userId])).rows[0]?.n ?? 0;
      const full = count >= max;
      if (existing && existing.userId !== row.userId && full) return 'limit';
      if (existing) {
        // The same browser again (new keys, or another user signed in on it): one row per endpoint.
        await tx.query('UPDATE push_subscriptions SET user_id = $1, p256dh = $2, auth = $3, device = $4, created_at = $5, last_error = NULL WHERE id = $6', [
          row.userId,
          row.p256dh,
          row.auth,
          row.device,
          row.createdAt,
          existing.id,
        ]);
        return { id: existing.id, created: false };
      }
      if (full) return 'limit';
      await tx.query('INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, device, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        row.id,
        row.userId,
        row.endpoint,
        row.p256dh,
        row.auth,
        row.device,
        row.createdAt,
      ]);
      return { id: row.id, created: true };
    });
  }

  async list(userId: string): Promise<PushDevice[]> {
    const { rows } = await this.pool.query<PushDevice>(
      `SELECT id, device, created_at AS "createdAt", last_success_at AS "lastSuccessAt", last_error AS "lastError"
       FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    return rows;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM push_subscriptions WHERE user_id = $1 AND id = $2', [userId, id])).rowCount ?? 0) > 0;
  }

  async removeEndpoint(userId: string, endpoint: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM push_subscriptions WHERE user_id = $1 AND endpoint = $2', [userId, endpoint])).rowCount ?? 0) > 0;
  }
}

const WHERE = 'job_id = $1 AND subscription_id = $2';

/**
 * The push deliveries and flood windows on PostgreSQL, safe with every node running the push
 * worker: as in the e-mail outbox (src/db/pg/alert-store/outbox.ts), a claim reads its row
 * `FOR UPDATE SKIP LOCKED` and decides and writes everything while holding it, and the flood
 * window of one (user, channel) is decided under its advisory lock.
 */
export class PgPushOutbox implements PushOutbox {
  private readonly leased: LeasedSends;

  /** Claims in the order the worker made them (src/db/pg/in-order.ts), as on SQLite. */
  private readonly claims = new InOrder();

  private readonly recipients: LoadedUnitRecipients | undefined;

  /** `recipients`: the recipient rule the claim's decision reads inside its transaction (services.ts). */
  constructor(
    private readonly pool: pg.Pool,
    opts: { sendLeaseMs?: number; recipients?: LoadedUnitRecipients } = {},
  ) {
    this.leased = new LeasedSends(pool, ['push_deliveries'], opts.sendLeaseMs ?? PUSH_SEND_LEASE_MS);
    this.recipients = opts.recipients;
  }

  /** Only rows claimed more than the lease ago (src/db/pg/leased-sends.ts): never another live node's request. */
  recoverInterrupted(reason: string, now: number): Promise<number> {
    return this.leased.recover(reason, now);
  }

  async due(now: number, limit: number): Promise<PushTarget[]> {
    const { rows } = await this.pool.query<PushTarget>(
      `SELECT job_id AS "jobId", subscription_id AS "subscriptionId" FROM push_deliveries
       WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, job_id LIMIT $2`,
      [now, limit],
    );
    return rows;
  }

  async claim<T>(target: PushTarget, now: number, decide: (c: PushClaimInput) => PushClaimDecision<T>): Promise<{ value: T; attempts: number } | null> {
    return this.claims.run(() => this.claimUnit(target, now, decide));
  }

  private claimUnit<T>(target: PushTarget, now: number, decide: (c: PushClaimInput) => PushClaimDecision<T>): Promise<{ value: T; attempts: number } | null> {
    const { jobId, subscriptionId } = target;
    return inTransaction(this.pool, async (tx) => {
      const found = await tx.query<PushDeliveryRow>(
        `SELECT job_id AS "jobId", subscription_id AS "subscriptionId", user_id AS "userId", channel_id AS "channelId", alert_id AS "alertId", kind, attempts
         FROM push_deliveries WHERE ${WHERE} AND state = 'pending' FOR UPDATE SKIP LOCKED`,
        [jobId, subscriptionId],
      );
      const delivery = found.rows[0];
      if (!delivery) return null;
      let window: PushWindow | undefined;
      if (delivery.attempts === 0) {
        await lockFloodWindow(tx, 'push', delivery.userId, delivery.channelId);
        window = (
          await tx.query<PushWindow>(
            'SELECT window_start AS "windowStart", window_end AS "windowEnd", sent, folded FROM push_flood_windows WHERE user_id = $1 AND channel_id = $2',
            [delivery.userId, delivery.channelId],
          )
        ).rows[0];
      }
      const alert = (await tx.query<AlertRow>(`SELECT ${PG_ALERT_COLUMNS} FROM alerts a WHERE a.id = $1`, [delivery.alertId])).rows[0];
      const subscription = (await tx.query<PushEndpoint>('SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE id = $1', [subscriptionId])).rows[0];
      const channel = await channelOf(tx, delivery.channelId);
      const run = () => decide({ delivery, alert, channel, subscription, window });
      const recipients = this.recipients;
      const decision = recipients ? await stepsOn(tx, (steps) => recipients.decideWithin(steps, delivery.channelId, delivery.userId, run)) : run();
      if ('skip' in decision) {
        await tx.query(`UPDATE push_deliveries SET state = 'skipped', last_error = $3, updated_at = $4 WHERE ${WHERE}`, [jobId, subscriptionId, decision.skip, now]);
        return null;
      }
      if (decision.flood) await applyFlood(tx, decision.flood, delivery.userId, delivery.channelId);
      await tx.query(`UPDATE push_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = $3 WHERE ${WHERE} AND state = 'pending'`, [
        jobId,
        subscriptionId,
        now,
      ]);
      return { value: decision.send, attempts: delivery.attempts + 1 };
    });
  }

  async recordSent(t: PushTarget, now: number): Promise<void> {
    await inTransaction(this.pool, async (tx) => {
      await tx.query(`UPDATE push_deliveries SET state = 'sent', last_error = NULL, updated_at = $3 WHERE ${WHERE}`, [t.jobId, t.subscriptionId, now]);
      await tx.query('UPDATE push_subscriptions SET last_success_at = $1, last_error = NULL WHERE id = $2', [now, t.subscriptionId]);
    });
  }

  async recordRetry(t: PushTarget, at: number, reason: string, now: number): Promise<void> {
    await this.pool.query(`UPDATE push_deliveries SET state = 'pending', next_attempt_at = $3, last_error = $4, updated_at = $5 WHERE ${WHERE}`, [
      t.jobId,
      t.subscriptionId,
      at,
      reason,
      now,
    ]);
  }

  async recordFailed(t: PushTarget, reason: string, now: number): Promise<void> {
    await inTransaction(this.pool, async (tx) => {
      await tx.query(`UPDATE push_deliveries SET state = 'failed', last_error = $3, updated_at = $4 WHERE ${WHERE}`, [t.jobId, t.subscriptionId, reason, now]);
      await tx.query('UPDATE push_subscriptions SET last_error = $1 WHERE id = $2', [reason, t.subscriptionId]);
    });
  }

  async removeSubscription(subscriptionId: string): Promise<void> {
    await this.pool.query('DELETE FROM push_subscriptions WHERE id = $1', [subscriptionId]);
  }

  async nextDue(): Promise<number | null> {
    const { rows } = await this.pool.query<{ t: number | null }>(`SELECT min(next_attempt_at) AS t FROM push_deliveries WHERE state = 'pending'`);
    return rows[0]?.t ?? null;
  }

  async prune(before: number, windowsBefore: number): Promise<void> {
    await inTransaction(this.pool, async (tx) => {
      await tx.query(`DELETE FROM push_deliveries WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < $1`, [before]);
      await tx.query('DELETE FROM push_flood_windows WHERE window_end < $1', [windowsBefore]);
    });
  }
}

/** Applies a push flood step under the window's advisory lock. */
async function applyFlood(tx: pg.PoolClient, step: PushFloodStep, userId: string, channelId: string): Promise<void> {
  if (step.kind === 'open') {
    await tx.query(
      `INSERT INTO push_flood_windows (user_id, channel_id, window_start, window_end, sent, folded) VALUES ($1, $2, $3, $4, 1, 0)
       ON CONFLICT (user_id, channel_id) DO UPDATE SET window_start = excluded.window_start, window_end = excluded.window_end, sent = 1, folded = 0`,
      [userId, channelId, step.windowStart, step.windowEnd],
    );
  } else {
    const column = step.kind === 'count' ? 'sent' : 'folded';
    await tx.query(`UPDATE push_flood_windows SET ${column} = ${column} + 1 WHERE user_id = $1 AND channel_id = $2`, [userId, channelId]);
  }
}
