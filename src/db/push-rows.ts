import type Database from 'better-sqlite3';
import type { AlertRow, OutboxChannel } from '../domain/alert-store.js';
import type { NewPushSubscription, PushDevice, PushSubscriptionRows } from '../domain/push.js';
import type { PushClaimDecision, PushClaimInput, PushDeliveryRow, PushEndpoint, PushFloodStep, PushOutbox, PushTarget, PushWindow } from '../domain/push-outbox.js';
import { ALERT_COLUMNS } from './alert-store/rows.js';

/** Runs `fn` in one BEGIN IMMEDIATE transaction: the write lock is taken up front, so a read-then-write never meets another writer half-way. */
function immediateTransactions(sqlite: Database.Database): <R>(fn: () => R) => R {
  const t = sqlite.transaction((fn: () => unknown) => fn());
  // better-sqlite3 types a transaction's result from its function, which here is generic: the result is fn's.
  return <R>(fn: () => R) => t.immediate(fn) as R;
}

/** The push_subscriptions rows: one per (user, browser). */
export class SqlitePushSubscriptionRows implements PushSubscriptionRows {
  private readonly s;
  private readonly tx;

  constructor(sqlite: Database.Database) {
    this.tx = immediateTransactions(sqlite);
    this.s = {
      byEndpoint: sqlite.prepare<[string], { id: string; userId: string }>('SELECT id, user_id AS userId FROM push_subscriptions WHERE endpoint = ?'),
      count: sqlite.prepare<[string], number>('SELECT count(*) FROM push_subscriptions WHERE user_id = ?').pluck(),
      replace: sqlite.prepare<[string, string, string, string, number, string]>(
        'UPDATE push_subscriptions SET user_id = ?, p256dh = ?, auth = ?, device = ?, created_at = ?, last_error = NULL WHERE id = ?',
      ),
      insert: sqlite.prepare<[NewPushSubscription]>(
        `INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, device, created_at) VALUES (@id, @userId, @endpoint, @p256dh, @auth, @device, @createdAt)`,
      ),
      list: sqlite.prepare<[string], PushDevice>(
        `SELECT id, device, created_at AS createdAt, last_success_at AS lastSuccessAt, last_error AS lastError
         FROM push_subscriptions WHERE user_id = ? ORDER BY created_at, id`,
      ),
      remove: sqlite.prepare<[string, string]>('DELETE FROM push_subscriptions WHERE user_id = ? AND id = ?'),
      removeEndpoint: sqlite.prepare<[string, string]>('DELETE FROM push_subscriptions WHERE user_id = ? AND endpoint = ?'),
    };
  }

  async upsert(row: NewPushSubscription, max: number): Promise<{ id: string; created: boolean } | 'limit'> {
    return this.tx(() => {
      const existing = this.s.byEndpoint.get(row.endpoint);
      const full = this.s.count.get(row.userId)! >= max;
      if (existing && existing.userId !== row.userId && full) return 'limit' as const;
      if (existing) {
        // The same browser again (new keys, or another user signed in on it): one row per endpoint.
        this.s.replace.run(row.userId, row.p256dh, row.auth, row.device, row.createdAt, existing.id);
        return { id: existing.id, created: false };
      }
      if (full) return 'limit' as const;
      this.s.insert.run(row);
      return { id: row.id, created: true };
    });
  }

  async list(userId: string): Promise<PushDevice[]> {
    return this.s.list.all(userId);
  }

  async remove(userId: string, id: string): Promise<boolean> {
    return this.s.remove.run(userId, id).changes > 0;
  }

  async removeEndpoint(userId: string, endpoint: string): Promise<boolean> {
    return this.s.removeEndpoint.run(userId, endpoint).changes > 0;
  }
}

/** The push deliveries and flood windows: the send half of Web Push's outbox (rows are inserted by the e-mail outbox's fan-out). */
export class SqlitePushOutbox implements PushOutbox {
  private readonly s;
  private readonly tx;

  constructor(sqlite: Database.Database) {
    this.tx = immediateTransactions(sqlite);
    const where = 'job_id = ? AND subscription_id = ?';
    this.s = {
      recover: sqlite.prepare<[string, number]>(`UPDATE push_deliveries SET state = 'failed', last_error = ?, updated_at = ? WHERE state = 'sending'`),
      due: sqlite.prepare<[number, number], PushTarget>(
        `SELECT job_id AS jobId, subscription_id AS subscriptionId FROM push_deliveries
         WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, job_id LIMIT ?`,
      ),
      delivery: sqlite.prepare<[number, string], PushDeliveryRow>(
        `SELECT job_id AS jobId, subscription_id AS subscriptionId, user_id AS userId, channel_id AS channelId, alert_id AS alertId, kind, attempts
         FROM push_deliveries WHERE ${where} AND state = 'pending'`,
      ),
      alert: sqlite.prepare<[string], AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id = ?`),
      channel: sqlite.prepare<[string], OutboxChannel>(
        `SELECT c.name, c.slug, c.icon, w.name AS workspaceName FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.id = ?`,
      ),
      subscription: sqlite.prepare<[string], PushEndpoint>('SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE id = ?'),
      window: sqlite.prepare<[string, string], PushWindow>(
        'SELECT window_start AS windowStart, window_end AS windowEnd, sent, folded FROM push_flood_windows WHERE user_id = ? AND channel_id = ?',
      ),
      openWindow: sqlite.prepare<[string, string, number, number]>(
        `INSERT INTO push_flood_windows (user_id, channel_id, window_start, window_end, sent, folded) VALUES (?, ?, ?, ?, 1, 0)
         ON CONFLICT (user_id, channel_id) DO UPDATE SET window_start = excluded.window_start, window_end = excluded.window_end, sent = 1, folded = 0`,
      ),
      count: sqlite.prepare<[string, string]>('UPDATE push_flood_windows SET sent = sent + 1 WHERE user_id = ? AND channel_id = ?'),
      fold: sqlite.prepare<[string, string]>('UPDATE push_flood_windows SET folded = folded + 1 WHERE user_id = ? AND channel_id = ?'),
      skip: sqlite.prepare<[string, number, number, string]>(`UPDATE push_deliveries SET state = 'skipped', last_error = ?, updated_at = ? WHERE ${where}`),
      claim: sqlite.prepare<[number, number, string]>(
        `UPDATE push_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE ${where} AND state = 'pending'`,
      ),
      sent: sqlite.prepare<[number, number, string]>(`UPDATE push_deliveries SET state = 'sent', last_error = NULL, updated_at = ? WHERE ${where}`),
      retry: sqlite.prepare<[number, string, number, number, string]>(
        `UPDATE push_deliveries SET state = 'pending', next_attempt_at = ?, last_error = ?, updated_at = ? WHERE ${where}`,
      ),
      failed: sqlite.prepare<[string, number, number, string]>(`UPDATE push_deliveries SET state = 'failed', last_error = ?, updated_at = ? WHERE ${where}`),
      subOk: sqlite.prepare<[number, string]>('UPDATE push_subscriptions SET last_success_at = ?, last_error = NULL WHERE id = ?'),
      subError: sqlite.prepare<[string, string]>('UPDATE push_subscriptions SET last_error = ? WHERE id = ?'),
      removeSub: sqlite.prepare<[string]>('DELETE FROM push_subscriptions WHERE id = ?'),
      nextDue: sqlite.prepare<[], number | null>(`SELECT min(next_attempt_at) FROM push_deliveries WHERE state = 'pending'`).pluck(),
      prune: sqlite.prepare<[number]>(`DELETE FROM push_deliveries WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < ?`),
      pruneWindows: sqlite.prepare<[number]>('DELETE FROM push_flood_windows WHERE window_end < ?'),
    };
  }

  async recoverInterrupted(reason: string, now: number) {
    return this.s.recover.run(reason, now).changes;
  }

  async due(now: number, limit: number) {
    return this.s.due.all(now, limit);
  }

  async claim<T>(target: PushTarget, now: number, decide: (c: PushClaimInput) => PushClaimDecision<T>) {
    return this.tx(() => {
      const { jobId, subscriptionId } = target;
      const delivery = this.s.delivery.get(jobId, subscriptionId);
      if (!delivery) return null;
      const window = delivery.attempts === 0 ? this.s.window.get(delivery.userId, delivery.channelId) : undefined;
      const decision = decide({
        delivery,
        alert: this.s.alert.get(delivery.alertId),
        channel: this.s.channel.get(delivery.channelId),
        subscription: this.s.subscription.get(subscriptionId),
        window,
      });
      if ('skip' in decision) {
        this.s.skip.run(decision.skip, now, jobId, subscriptionId);
        return null;
      }
      if (decision.flood) this.applyFlood(decision.flood, delivery.userId, delivery.channelId);
      this.s.claim.run(now, jobId, subscriptionId);
      return { value: decision.send, attempts: delivery.attempts + 1 };
    });
  }

  private applyFlood(step: PushFloodStep, userId: string, channelId: string): void {
    if (step.kind === 'open') this.s.openWindow.run(userId, channelId, step.windowStart, step.windowEnd);
    else if (step.kind === 'count') this.s.count.run(userId, channelId);
    else this.s.fold.run(userId, channelId);
  }

  async recordSent(t: PushTarget, now: number) {
    this.tx(() => {
      this.s.sent.run(now, t.jobId, t.subscriptionId);
      this.s.subOk.run(now, t.subscriptionId);
    });
  }

  async recordRetry(t: PushTarget, at: number, reason: string, now: number) {
    this.s.retry.run(at, reason, now, t.jobId, t.subscriptionId);
  }

  async recordFailed(t: PushTarget, reason: string, now: number) {
    this.tx(() => {
      this.s.failed.run(reason, now, t.jobId, t.subscriptionId);
      this.s.subError.run(reason, t.subscriptionId);
    });
  }

  async removeSubscription(subscriptionId: string) {
    this.s.removeSub.run(subscriptionId);
  }

  async nextDue() {
    return this.s.nextDue.get() ?? null;
  }

  async prune(before: number, windowsBefore: number) {
    this.tx(() => {
      this.s.prune.run(before);
      this.s.pruneWindows.run(windowsBefore);
    });
  }
}
