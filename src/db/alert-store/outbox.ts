import type Database from 'better-sqlite3';
import type {
  AlertRow,
  AttachmentRow,
  ClaimDecision,
  FanOutPlan,
  FloodStep,
  FloodWindow,
  JobRetry,
  Outbox,
  OutboxChannel,
  OutboxDelivery,
  OutboxDigest,
  OutboxJob,
  OutboxTarget,
  DeliveryDecide,
  DigestDecide,
} from '../../domain/alert-store.js';
import { ALERT_COLUMNS, ATTACHMENT_COLUMNS } from './rows.js';

type Stmt<P extends unknown[], R = unknown> = Database.Statement<P, R>;

/** The statements that record an attempt's outcome, per outbox table (delivery rows and digests share the send path). */
interface OutcomeStatements<K extends unknown[]> {
  sent: Stmt<[string, number, ...K]>;
  failed: Stmt<[string, number, ...K]>;
  retry: Stmt<[number, string, number, ...K]>;
}

/**
 * The e-mail outbox in SQLite: `notification_jobs` (written by the alert
 * writes), and the delivery, digest and flood-window rows the worker keeps.
 * Every method runs one immediate transaction synchronously and resolves
 * after it committed.
 */
export class SqliteOutbox implements Outbox {
  private readonly s;
  private readonly deliveryOutcome: OutcomeStatements<[number, string]>;
  private readonly digestOutcome: OutcomeStatements<[number]>;
  // Built once: creating a better-sqlite3 transaction wrapper costs more than the statements it runs.
  private readonly immediate: (fn: () => void) => void;

  constructor(sqlite: Database.Database) {
    const tx = sqlite.transaction((fn: () => void) => fn());
    this.immediate = (fn) => tx.immediate(fn);
    this.s = {
      dueJobs: sqlite
        .prepare<[number, number], number>(`SELECT id FROM notification_jobs WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT ?`)
        .pluck(),
      job: sqlite.prepare<[number], OutboxJob & { attempts: number }>(
        `SELECT id, alert_id AS alertId, channel_id AS channelId, kind, attempts FROM notification_jobs WHERE id = ? AND state = 'pending'`,
      ),
      jobDone: sqlite.prepare<[string | null, number]>(`UPDATE notification_jobs SET state = 'done', attempts = attempts + 1, last_error = ? WHERE id = ?`),
      jobRetry: sqlite.prepare<[string, number, number, string, number]>(
        `UPDATE notification_jobs SET state = ?, attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`,
      ),
      alertLevel: sqlite.prepare<[string], Pick<AlertRow, 'level'>>(`SELECT level FROM alerts WHERE id = ?`),
      insertDelivery: sqlite.prepare<[number, string, string, string, number, number, number]>(
        `INSERT OR IGNORE INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      ),
      // Web Push: one row per subscription of the user, in the fan-out's transaction (src/db/push-rows.ts sends them).
      insertPush: sqlite.prepare<[number, string, string, string, number, number, number, string]>(
        `INSERT OR IGNORE INTO push_deliveries (job_id, subscription_id, user_id, channel_id, alert_id, kind, state, attempts, next_attempt_at, created_at, updated_at)
         SELECT ?, s.id, s.user_id, ?, ?, ?, 'pending', 0, ?, ?, ? FROM push_subscriptions s WHERE s.user_id = ?`,
      ),
      dueDeliveries: sqlite.prepare<[number, number], { jobId: number; userId: string }>(
        `SELECT job_id AS jobId, user_id AS userId FROM notification_deliveries
         WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, job_id LIMIT ?`,
      ),
      delivery: sqlite.prepare<[number, string], OutboxDelivery>(
        `SELECT d.job_id AS jobId, d.user_id AS userId, d.channel_id AS channelId, d.alert_id AS alertId, d.attempts, j.kind
         FROM notification_deliveries d LEFT JOIN notification_jobs j ON j.id = d.job_id
         WHERE d.job_id = ? AND d.user_id = ? AND d.state = 'pending'`,
      ),
      setDelivery: sqlite.prepare<[{ state: string; error: string | null; digestId: number | null; now: number; jobId: number; userId: string }]>(
        `UPDATE notification_deliveries SET state = @state, last_error = @error, digest_id = COALESCE(@digestId, digest_id), updated_at = @now
         WHERE job_id = @jobId AND user_id = @userId`,
      ),
      claimDelivery: sqlite.prepare<[number, number, string]>(
        `UPDATE notification_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE job_id = ? AND user_id = ? AND state = 'pending'`,
      ),
      dueDigests: sqlite
        .prepare<[number, number], number>(`SELECT id FROM notification_digests WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`)
        .pluck(),
      digest: sqlite.prepare<[number], OutboxDigest>(
        `SELECT id, user_id AS userId, channel_id AS channelId, window_start AS windowStart, window_end AS windowEnd, attempts
         FROM notification_digests WHERE id = ? AND state = 'pending'`,
      ),
      digestAlerts: sqlite.prepare<[number], AlertRow>(
        `SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id IN (SELECT alert_id FROM notification_deliveries WHERE digest_id = ?) ORDER BY a.id`,
      ),
      claimDigest: sqlite.prepare<[number, number]>(
        `UPDATE notification_digests SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE id = ? AND state = 'pending'`,
      ),
      skipDigest: sqlite.prepare<[string, number, number]>(`UPDATE notification_digests SET state = 'skipped', last_error = ?, updated_at = ? WHERE id = ?`),
      window: sqlite.prepare<[string, string], FloodWindow>(
        `SELECT w.window_start AS windowStart, w.window_end AS windowEnd, w.sent, w.digest_id AS digestId, g.state AS digestState
         FROM notification_flood_windows w LEFT JOIN notification_digests g ON g.id = w.digest_id
         WHERE w.user_id = ? AND w.channel_id = ?`,
      ),
      openWindow: sqlite.prepare<[string, string, number, number]>(
        `INSERT INTO notification_flood_windows (user_id, channel_id, window_start, window_end, sent, digest_id) VALUES (?, ?, ?, ?, 1, NULL)
         ON CONFLICT (user_id, channel_id) DO UPDATE SET window_start = excluded.window_start, window_end = excluded.window_end, sent = 1, digest_id = NULL`,
      ),
      countInWindow: sqlite.prepare<[string, string]>(`UPDATE notification_flood_windows SET sent = sent + 1 WHERE user_id = ? AND channel_id = ?`),
      insertDigest: sqlite.prepare<[string, string, number, number, number, number, number]>(
        `INSERT INTO notification_digests (user_id, channel_id, window_start, window_end, state, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      ),
      setWindowDigest: sqlite.prepare<[number, string, string]>(`UPDATE notification_flood_windows SET digest_id = ? WHERE user_id = ? AND channel_id = ?`),
      alert: sqlite.prepare<[string], AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id = ?`),
      attachments: sqlite.prepare<[string], AttachmentRow>(`SELECT ${ATTACHMENT_COLUMNS} FROM alert_attachments WHERE alert_id = ? ORDER BY position`),
      channel: sqlite.prepare<[string], OutboxChannel>(
        `SELECT c.name, c.slug, c.icon, w.name AS workspaceName FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.id = ?`,
      ),
      startedMessageId: sqlite
        .prepare<[string, string], string>(
          `SELECT d.message_id FROM notification_deliveries d JOIN notification_jobs j ON j.id = d.job_id
           WHERE j.alert_id = ? AND j.kind = 'workflow.started' AND d.user_id = ? AND d.message_id IS NOT NULL`,
        )
        .pluck(),
      nextDue: sqlite
        .prepare<[{ mail: number }], number | null>(
          `SELECT min(t) FROM (
             SELECT min(next_attempt_at) AS t FROM notification_jobs WHERE state = 'pending'
             UNION ALL SELECT min(next_attempt_at) FROM notification_deliveries WHERE state = 'pending' AND @mail
             UNION ALL SELECT min(next_attempt_at) FROM notification_digests WHERE state = 'pending' AND @mail)`,
        )
        .pluck(),
      recoverDeliveries: sqlite.prepare<[string, number]>(`UPDATE notification_deliveries SET state = 'failed', last_error = ?, updated_at = ? WHERE state = 'sending'`),
      recoverDigests: sqlite.prepare<[string, number]>(`UPDATE notification_digests SET state = 'failed', last_error = ?, updated_at = ? WHERE state = 'sending'`),
      pruneDeliveries: sqlite.prepare<[number]>(
        `DELETE FROM notification_deliveries WHERE state IN ('sent', 'folded', 'skipped', 'failed')
         AND job_id IN (SELECT id FROM notification_jobs WHERE state IN ('done', 'failed') AND created_at < ?)`,
      ),
      pruneJobs: sqlite.prepare<[number]>(
        `DELETE FROM notification_jobs WHERE state IN ('done', 'failed') AND created_at < ?
         AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.job_id = notification_jobs.id)`,
      ),
      pruneDigests: sqlite.prepare<[number]>(`DELETE FROM notification_digests WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < ?`),
      pruneWindows: sqlite.prepare<[number]>('DELETE FROM notification_flood_windows WHERE window_end < ?'),
    };
    const outcomes = <K extends unknown[]>(table: string, where: string): OutcomeStatements<K> => ({
      sent: sqlite.prepare(`UPDATE ${table} SET state = 'sent', message_id = ?, last_error = NULL, updated_at = ? WHERE ${where}`),
      failed: sqlite.prepare(`UPDATE ${table} SET state = 'failed', last_error = ?, updated_at = ? WHERE ${where}`),
      retry: sqlite.prepare(`UPDATE ${table} SET state = 'pending', next_attempt_at = ?, last_error = ?, updated_at = ? WHERE ${where}`),
    });
    this.deliveryOutcome = outcomes('notification_deliveries', 'job_id = ? AND user_id = ?');
    this.digestOutcome = outcomes('notification_digests', 'id = ?');
  }

  /** Runs `fn` in one immediate transaction and returns what it returned. */
  private inTx<R>(fn: () => R): R {
    let result!: R;
    this.immediate(() => {
      result = fn();
    });
    return result;
  }

  async recoverInterrupted(reason: string, now: number) {
    return this.s.recoverDeliveries.run(reason, now).changes + this.s.recoverDigests.run(reason, now).changes;
  }

  async dueJobs(now: number, limit: number) {
    return this.s.dueJobs.all(now, limit);
  }

  async fanOut(jobId: number, now: number, plan: (job: OutboxJob, alert: Pick<AlertRow, 'level'> | undefined) => FanOutPlan) {
    this.inTx(() => this.fanOutUnit(jobId, now, plan));
  }

  async retryJob(jobId: number, retry: (attempts: number) => JobRetry) {
    return this.inTx(() => this.retryUnit(jobId, retry));
  }

  async dueDeliveries(now: number, limit: number) {
    return this.s.dueDeliveries.all(now, limit);
  }

  async dueDigests(now: number, limit: number) {
    return this.s.dueDigests.all(now, limit);
  }

  async claimDelivery<T>(jobId: number, userId: string, now: number, decide: DeliveryDecide<T>) {
    return this.inTx(() => this.claimDeliveryUnit(jobId, userId, now, decide));
  }

  async claimDigest<T>(digestId: number, now: number, decide: DigestDecide<T>) {
    return this.inTx(() => this.claimDigestUnit(digestId, now, decide));
  }

  async startedMessageId(alertId: string, userId: string) {
    return this.s.startedMessageId.get(alertId, userId);
  }

  async attachmentsOf(alertId: string) {
    return this.s.attachments.all(alertId);
  }

  async recordSent(target: OutboxTarget, messageId: string, now: number) {
    if ('digestId' in target) this.digestOutcome.sent.run(messageId, now, target.digestId);
    else this.deliveryOutcome.sent.run(messageId, now, target.jobId, target.userId);
  }

  async recordFailed(target: OutboxTarget, reason: string, now: number) {
    if ('digestId' in target) this.digestOutcome.failed.run(reason, now, target.digestId);
    else this.deliveryOutcome.failed.run(reason, now, target.jobId, target.userId);
  }

  async recordRetry(target: OutboxTarget, at: number, reason: string, now: number) {
    if ('digestId' in target) this.digestOutcome.retry.run(at, reason, now, target.digestId);
    else this.deliveryOutcome.retry.run(at, reason, now, target.jobId, target.userId);
  }

  async nextDue(mail: boolean) {
    return this.s.nextDue.get({ mail: mail ? 1 : 0 }) ?? null;
  }

  async anythingDue(now: number, mail: boolean) {
    if (this.s.dueJobs.all(now, 1).length > 0) return true;
    return mail && (this.s.dueDeliveries.all(now, 1).length > 0 || this.s.dueDigests.all(now, 1).length > 0);
  }

  async prune(before: number, windowsBefore: number) {
    this.inTx(() => {
      this.s.pruneDeliveries.run(before);
      this.s.pruneJobs.run(before);
      this.s.pruneDigests.run(before);
      this.s.pruneWindows.run(windowsBefore);
    });
  }

  private fanOutUnit(jobId: number, now: number, plan: (job: OutboxJob, alert: Pick<AlertRow, 'level'> | undefined) => FanOutPlan): void {
    const job = this.s.job.get(jobId);
    if (!job) return;
    const { deliverTo, note, pushTo = [] } = plan(job, this.s.alertLevel.get(job.alertId));
    for (const userId of deliverTo) this.s.insertDelivery.run(jobId, userId, job.channelId, job.alertId, now, now, now);
    for (const userId of pushTo) this.s.insertPush.run(jobId, job.channelId, job.alertId, job.kind, now, now, now, userId);
    this.s.jobDone.run(note, jobId);
  }

  private retryUnit(jobId: number, retry: (attempts: number) => JobRetry): { attempts: number; giveUp: boolean } | undefined {
    const job = this.s.job.get(jobId);
    if (!job) return undefined;
    const attempts = job.attempts + 1;
    const r = retry(attempts);
    this.s.jobRetry.run(r.giveUp ? 'failed' : 'pending', attempts, r.at, r.reason, jobId);
    return { attempts, giveUp: r.giveUp };
  }

  private claimDeliveryUnit<T>(jobId: number, userId: string, now: number, decide: DeliveryDecide<T>): { value: T; attempts: number } | null {
    const delivery = this.s.delivery.get(jobId, userId);
    if (!delivery) return null;
    const alert = this.s.alert.get(delivery.alertId);
    const channel = this.s.channel.get(delivery.channelId);
    // Counted once: a retry of a delivery already let through is not a new e-mail for the guard.
    const window = delivery.attempts === 0 ? (this.s.window.get(userId, delivery.channelId) ?? undefined) : undefined;
    const decision: ClaimDecision<T> = decide({ delivery, alert, channel, window });
    const set = (state: string, error: string | null, digestId: number | null) => this.s.setDelivery.run({ state, error, digestId, now, jobId, userId });
    if ('skip' in decision) {
      set('skipped', decision.skip, null);
      return null;
    }
    const folded = decision.flood && this.applyFlood(decision.flood, userId, delivery.channelId, now);
    if (folded) {
      set('folded', null, folded);
      return null;
    }
    this.s.claimDelivery.run(now, jobId, userId);
    return { value: decision.send, attempts: delivery.attempts + 1 };
  }

  /** Applies a flood-guard step; returns the digest id when the e-mail is folded into one. */
  private applyFlood(step: FloodStep, userId: string, channelId: string, now: number): number | null {
    switch (step.kind) {
      case 'open':
        this.s.openWindow.run(userId, channelId, step.windowStart, step.windowEnd);
        return null;
      case 'count':
        this.s.countInWindow.run(userId, channelId);
        return null;
      case 'fold':
        return step.digestId;
      case 'new-digest': {
        // Due when the window closes.
        const id = Number(this.s.insertDigest.run(userId, channelId, step.windowStart, step.windowEnd, step.windowEnd, now, now).lastInsertRowid);
        this.s.setWindowDigest.run(id, userId, channelId);
        return id;
      }
    }
  }

  private claimDigestUnit<T>(digestId: number, now: number, decide: DigestDecide<T>): { value: T; digest: OutboxDigest; attempts: number } | null {
    const digest = this.s.digest.get(digestId);
    if (!digest) return null;
    const decision = decide({ digest, channel: this.s.channel.get(digest.channelId), alerts: this.s.digestAlerts.all(digestId) });
    if ('skip' in decision) {
      this.s.skipDigest.run(decision.skip, now, digestId);
      return null;
    }
    this.s.claimDigest.run(now, digestId);
    return { value: decision.send, digest, attempts: digest.attempts + 1 };
  }
}
