import type {
  PushClaimDecision, PushClaimInput, PushDeliveryRow, PushEndpoint, PushFloodStep, PushOutbox, PushTarget, PushWindow,
} from '../../domain/push-outbox.js';
import { escalationMarkOf } from './escalation-rows.js';
import { InOrder } from './in-order.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { ALERT_BY_ID, FLOOD_WINDOW_LOCK, OUTBOX_CHANNEL } from './outbox-steps.js';
import type { LoadedUnitRecipients } from './preference-rows.js';
import { perEngine, statement } from './statement.js';

/**
 * How long a push may stay `sending` on PostgreSQL before `recoverInterrupted` takes it for one
 * whose node died mid-request: far beyond the request's own timeout (src/notify/push/transport.ts,
 * 10 s), so a live node's request is never taken from it.
 */
export const PUSH_SEND_LEASE_MS = 5 * 60_000;

type Target = { jobId: number; subscriptionId: string };
const WHERE = 'job_id = :jobId AND subscription_id = :subscriptionId';

const RECOVER_SQL = `UPDATE push_deliveries SET state = 'failed', last_error = :reason, updated_at = :now WHERE state = 'sending'`;
/** SQLite's one process: every `sending` row at start-up was interrupted. PostgreSQL: only rows leased out longer ago than the lease (another node may be sending now). */
const RECOVER = perEngine<{ reason: string; now: number; claimedBefore: number }>({ sqlite: RECOVER_SQL, pg: `${RECOVER_SQL} AND updated_at < :claimedBefore` });
const DUE = statement<{ now: number; limit: number }, PushTarget>(
  `SELECT job_id AS "jobId", subscription_id AS "subscriptionId" FROM push_deliveries
   WHERE state = 'pending' AND next_attempt_at <= :now ORDER BY next_attempt_at, job_id LIMIT :limit`,
);
const CLAIMABLE_SQL = `SELECT job_id AS "jobId", subscription_id AS "subscriptionId", user_id AS "userId", channel_id AS "channelId", alert_id AS "alertId", kind, attempts
   FROM push_deliveries WHERE ${WHERE} AND state = 'pending'`;
/** PostgreSQL: a row another node's claim holds is skipped, and this claim decides and writes while holding its own. */
const CLAIMABLE = perEngine<Target, PushDeliveryRow>({ sqlite: CLAIMABLE_SQL, pg: `${CLAIMABLE_SQL} FOR UPDATE SKIP LOCKED` });
const WINDOW = statement<{ userId: string; channelId: string }, PushWindow>(
  'SELECT window_start AS "windowStart", window_end AS "windowEnd", sent, folded FROM push_flood_windows WHERE user_id = :userId AND channel_id = :channelId',
);
const SUBSCRIPTION = statement<{ subscriptionId: string }, PushEndpoint>('SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE id = :subscriptionId');
const OPEN_WINDOW = statement<{ userId: string; channelId: string; windowStart: number; windowEnd: number }>(
  `INSERT INTO push_flood_windows (user_id, channel_id, window_start, window_end, sent, folded) VALUES (:userId, :channelId, :windowStart, :windowEnd, 1, 0)
   ON CONFLICT (user_id, channel_id) DO UPDATE SET window_start = excluded.window_start, window_end = excluded.window_end, sent = 1, folded = 0`,
);
const COUNT_SENT = statement<{ userId: string; channelId: string }>('UPDATE push_flood_windows SET sent = sent + 1 WHERE user_id = :userId AND channel_id = :channelId');
const COUNT_FOLDED = statement<{ userId: string; channelId: string }>('UPDATE push_flood_windows SET folded = folded + 1 WHERE user_id = :userId AND channel_id = :channelId');
const SKIP = statement<Target & { reason: string; now: number }>(`UPDATE push_deliveries SET state = 'skipped', last_error = :reason, updated_at = :now WHERE ${WHERE}`);
const CLAIM = statement<Target & { now: number }>(
  `UPDATE push_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = :now WHERE ${WHERE} AND state = 'pending'`,
);
const SENT = statement<Target & { now: number }>(`UPDATE push_deliveries SET state = 'sent', last_error = NULL, updated_at = :now WHERE ${WHERE}`);
const RETRY = statement<Target & { at: number; reason: string; now: number }>(
  `UPDATE push_deliveries SET state = 'pending', next_attempt_at = :at, last_error = :reason, updated_at = :now WHERE ${WHERE}`,
);
const FAILED = statement<Target & { reason: string; now: number }>(`UPDATE push_deliveries SET state = 'failed', last_error = :reason, updated_at = :now WHERE ${WHERE}`);
const SUBSCRIPTION_OK = statement<{ subscriptionId: string; now: number }>('UPDATE push_subscriptions SET last_success_at = :now, last_error = NULL WHERE id = :subscriptionId');
const SUBSCRIPTION_ERROR = statement<{ subscriptionId: string; reason: string }>('UPDATE push_subscriptions SET last_error = :reason WHERE id = :subscriptionId');
const REMOVE_SUBSCRIPTION = statement<{ subscriptionId: string }>('DELETE FROM push_subscriptions WHERE id = :subscriptionId');
const NEXT_DUE = statement<Record<string, never>, { next: number | null }>(`SELECT min(next_attempt_at) AS next FROM push_deliveries WHERE state = 'pending'`);
const PRUNE = statement<{ before: number }>(`DELETE FROM push_deliveries WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < :before`);
const PRUNE_WINDOWS = statement<{ before: number }>('DELETE FROM push_flood_windows WHERE window_end < :before');

/**
 * The push deliveries and flood windows, the send half of Web Push's outbox (rows are inserted by
 * the e-mail outbox's fan-out), on either engine and safe with every PostgreSQL node running the
 * push worker: a claim reads its row `FOR UPDATE SKIP LOCKED` and decides and writes everything
 * while holding it, and the flood window of one (user, channel) is decided under its advisory lock.
 */
export class SqlPushOutbox implements PushOutbox {
  /** Claims in the order the worker made them (src/db/shared/in-order.ts): what SQLite's synchronous transactions give anyway. */
  private readonly claims = new InOrder();
  private readonly sendLeaseMs: number;
  private readonly recipients: LoadedUnitRecipients | undefined;

  /** `recipients`: the recipient rule the claim's decision reads inside its transaction (PostgreSQL; SQLite's decision reads its own synchronously). */
  constructor(
    private readonly database: SqlExecutor,
    opts: { sendLeaseMs?: number; recipients?: LoadedUnitRecipients } = {},
  ) {
    this.sendLeaseMs = opts.sendLeaseMs ?? PUSH_SEND_LEASE_MS;
    this.recipients = opts.recipients;
  }

  recoverInterrupted(reason: string, now: number): Promise<number> {
    return this.database.run(RECOVER, { reason, now, claimedBefore: now - this.sendLeaseMs });
  }

  due(now: number, limit: number): Promise<PushTarget[]> {
    return this.database.all(DUE, { now, limit });
  }

  claim<T>(target: PushTarget, now: number, decide: (c: PushClaimInput) => PushClaimDecision<T>): Promise<{ value: T; attempts: number } | null> {
    return this.claims.run(() => this.database.transaction((tx) => this.claimSteps(tx, target, now, decide)));
  }

  private *claimSteps<T>(
    tx: TransactionSteps,
    target: PushTarget,
    now: number,
    decide: (c: PushClaimInput) => PushClaimDecision<T>,
  ): Step<{ value: T; attempts: number } | null> {
    const { jobId, subscriptionId } = target;
    const row = yield* tx.get(CLAIMABLE, { jobId, subscriptionId });
    if (!row) return null;
    const delivery = { ...row, ...(yield* escalationMarkOf(tx, row.kind, jobId)) };
    const { userId, channelId } = delivery;
    let window: PushWindow | undefined;
    if (delivery.attempts === 0) {
      yield* tx.run(FLOOD_WINDOW_LOCK, { kind: 'push', userId, channelId });
      window = yield* tx.get(WINDOW, { userId, channelId });
    }
    const alert = yield* tx.get(ALERT_BY_ID, { alertId: delivery.alertId });
    const channel = yield* tx.get(OUTBOX_CHANNEL, { channelId });
    const subscription = yield* tx.get(SUBSCRIPTION, { subscriptionId });
    const run = () => decide({ delivery, alert, channel, subscription, window });
    const decision = this.recipients ? yield* this.recipients.decideWithin(tx, channelId, userId, run) : run();
    if ('skip' in decision) {
      yield* tx.run(SKIP, { jobId, subscriptionId, reason: decision.skip, now });
      return null;
    }
    if (decision.flood) yield* floodSteps(tx, decision.flood, userId, channelId);
    yield* tx.run(CLAIM, { jobId, subscriptionId, now });
    return { value: decision.send, attempts: delivery.attempts + 1 };
  }

  async recordSent(target: PushTarget, now: number): Promise<void> {
    await this.database.transaction(function* (tx) {
      yield* tx.run(SENT, { ...target, now });
      yield* tx.run(SUBSCRIPTION_OK, { subscriptionId: target.subscriptionId, now });
    });
  }

  async recordRetry(target: PushTarget, at: number, reason: string, now: number): Promise<void> {
    await this.database.run(RETRY, { ...target, at, reason, now });
  }

  async recordFailed(target: PushTarget, reason: string, now: number): Promise<void> {
    await this.database.transaction(function* (tx) {
      yield* tx.run(FAILED, { ...target, reason, now });
      yield* tx.run(SUBSCRIPTION_ERROR, { subscriptionId: target.subscriptionId, reason });
    });
  }

  async removeSubscription(subscriptionId: string): Promise<void> {
    await this.database.run(REMOVE_SUBSCRIPTION, { subscriptionId });
  }

  async nextDue(): Promise<number | null> {
    return (await this.database.value(NEXT_DUE, {})) ?? null;
  }

  async prune(before: number, windowsBefore: number): Promise<void> {
    await this.database.transaction(function* (tx) {
      yield* tx.run(PRUNE, { before });
      yield* tx.run(PRUNE_WINDOWS, { before: windowsBefore });
    });
  }
}

/** Moves the recipient's push flood window as the guard decided (under the window's lock on PostgreSQL). */
function* floodSteps(tx: TransactionSteps, step: PushFloodStep, userId: string, channelId: string): Step<void> {
  if (step.kind === 'open') yield* tx.run(OPEN_WINDOW, { userId, channelId, windowStart: step.windowStart, windowEnd: step.windowEnd });
  else yield* tx.run(step.kind === 'count' ? COUNT_SENT : COUNT_FOLDED, { userId, channelId });
}
