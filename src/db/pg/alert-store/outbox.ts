import type pg from 'pg';
import { InOrder } from '../../shared/in-order.js';
import { LeasedSends } from '../leased-sends.js';
import type { AlertRow, AttachmentRow } from '../../../domain/alert-rows.js';
import type {
  DeliveryDecide, DigestDecide, FanOutPlan, FloodStep, FloodWindow, JobRetry, Outbox, OutboxChannel, OutboxDelivery, OutboxDigest, OutboxJob,
  OutboxTarget,
} from '../../../domain/outbox-store.js';
import { FLOOD_WINDOW_LOCK_CLASS } from '../locks.js';
import type { LoadedUnitRecipients } from '../../shared/preference-rows.js';
import { stepsOn } from '../executor.js';
import { inTransaction } from '../transaction.js';
import { PG_ALERT_COLUMNS, PG_ATTACHMENT_COLUMNS } from './rows.js';

type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * How long a row may stay `sending` before `recoverInterrupted` takes it for one whose node died
 * mid-send. Longer than any SMTP conversation can last (nodemailer gives up after 2 min connecting
 * and 10 min of socket silence), so a live node's send is never taken from it.
 */
export const MAIL_SEND_LEASE_MS = 30 * 60_000;

const PG_CHANNEL_OF = `SELECT c.name, c.slug, c.icon, w.name AS "workspaceName" FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.id = $1`;

/** Serializes flood-window decisions for one (user, channel) across nodes until COMMIT (src/db/pg/locks.ts). */
export async function lockFloodWindow(tx: Queryable, kind: 'mail' | 'push', userId: string, channelId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock($1::int, hashtext($2::text || chr(10) || $3::text || chr(10) || $4::text))`, [FLOOD_WINDOW_LOCK_CLASS, kind, userId, channelId]);
}

/**
 * The e-mail outbox on PostgreSQL, behind the interface SQLite implements
 * (test/cluster/outbox-contract.test.ts runs the same cases on both), safe with every node running
 * the worker. Claims read their row `FOR UPDATE SKIP LOCKED` inside the claim's transaction:
 * under READ COMMITTED a node that finds the row locked by another's claim skips it at once, and
 * one that reads it after that claim committed finds it no longer `pending`; every decision
 * (skip, fold, flood step) is made and written while the row is held, so exactly one node moves a
 * row out of `pending`. A guarded `UPDATE … WHERE state = 'pending'` alone would make the final
 * state change exclusive, but not the reads and side effects before it (two nodes could both
 * count the flood window, or one fold a row the other sends).
 */
export class PgOutbox implements Outbox {
  private readonly leased: LeasedSends;

  /** Delivery claims in the order the worker made them (src/db/shared/in-order.ts), as on SQLite. */
  private readonly claims = new InOrder();

  private readonly recipients: LoadedUnitRecipients | undefined;

  /** `recipients`: the recipient rule the decisions read inside each transaction (services.ts); without it they are run as given. */
  constructor(
    private readonly pool: pg.Pool,
    opts: { sendLeaseMs?: number; recipients?: LoadedUnitRecipients } = {},
  ) {
    this.leased = new LeasedSends(pool, ['notification_deliveries', 'notification_digests'], opts.sendLeaseMs ?? MAIL_SEND_LEASE_MS);
    this.recipients = opts.recipients;
  }

  /** Runs a decision with the recipient rule read in `tx` (everyone of the channel, or one user). */
  private decideWithin<T>(tx: Queryable, channelId: string, userId: string | null, decide: () => T): Promise<T> | T {
    const recipients = this.recipients;
    return recipients ? stepsOn(tx, (steps) => recipients.decideWithin(steps, channelId, userId, decide)) : decide();
  }

  /** Only rows claimed more than the lease ago (src/db/pg/leased-sends.ts). */
  recoverInterrupted(reason: string, now: number): Promise<number> {
    return this.leased.recover(reason, now);
  }

  async dueJobs(now: number, limit: number): Promise<number[]> {
    const { rows } = await this.pool.query<{ id: number }>(
      `SELECT id FROM notification_jobs WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY id LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  /** The job row is held `FOR UPDATE SKIP LOCKED`: a job another node is fanning out right now is left to it. */
  async fanOut(jobId: number, now: number, plan: (job: OutboxJob, alert: Pick<AlertRow, 'level'> | undefined) => FanOutPlan): Promise<void> {
    await inTransaction(this.pool, async (tx) => {
      const job = await this.pendingJob(tx, jobId);
      if (!job) return;
      const level = await tx.query<Pick<AlertRow, 'level'>>('SELECT level FROM alerts WHERE id = $1', [job.alertId]);
      const { deliverTo, note, pushTo = [] } = await this.decideWithin(tx, job.channelId, null, () => plan(job, level.rows[0]));
      if (deliverTo.length > 0) {
        await tx.query(
          `INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at)
           SELECT $1::bigint, u, $2::text, $3::text, 'pending', 0, $4::bigint, $4::bigint, $4::bigint FROM unnest($5::text[]) AS u ON CONFLICT DO NOTHING`,
          [jobId, job.channelId, job.alertId, now, deliverTo],
        );
      }
      if (pushTo.length > 0) {
        // Web Push: one row per subscription of each user, in the fan-out's transaction (src/db/pg/push-rows.ts sends them).
        await tx.query(
          `INSERT INTO push_deliveries (job_id, subscription_id, user_id, channel_id, alert_id, kind, state, attempts, next_attempt_at, created_at, updated_at)
           SELECT $1::bigint, s.id, s.user_id, $2::text, $3::text, $4::text, 'pending', 0, $5::bigint, $5::bigint, $5::bigint FROM push_subscriptions s WHERE s.user_id = ANY($6::text[])
           ON CONFLICT DO NOTHING`,
          [jobId, job.channelId, job.alertId, job.kind, now, pushTo],
        );
      }
      await tx.query(`UPDATE notification_jobs SET state = 'done', attempts = attempts + 1, last_error = $1 WHERE id = $2`, [note, jobId]);
    });
  }

  async retryJob(jobId: number, retry: (attempts: number) => JobRetry): Promise<{ attempts: number; giveUp: boolean } | undefined> {
    return inTransaction(this.pool, async (tx) => {
      const job = await this.pendingJob(tx, jobId);
      if (!job) return undefined;
      const attempts = job.attempts + 1;
      const r = retry(attempts);
      await tx.query(`UPDATE notification_jobs SET state = $1, attempts = $2, next_attempt_at = $3, last_error = $4 WHERE id = $5`, [
        r.giveUp ? 'failed' : 'pending',
        attempts,
        r.at,
        r.reason,
        jobId,
      ]);
      return { attempts, giveUp: r.giveUp };
    });
  }

  async dueDeliveries(now: number, limit: number): Promise<{ jobId: number; userId: string }[]> {
    const { rows } = await this.pool.query<{ jobId: number; userId: string }>(
      `SELECT job_id AS "jobId", user_id AS "userId" FROM notification_deliveries
       WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, job_id LIMIT $2`,
      [now, limit],
    );
    return rows;
  }

  async dueDigests(now: number, limit: number): Promise<number[]> {
    const { rows } = await this.pool.query<{ id: number }>(
      `SELECT id FROM notification_digests WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  async claimDelivery<T>(jobId: number, userId: string, now: number, decide: DeliveryDecide<T>): Promise<{ value: T; attempts: number } | null> {
    return this.claims.run(() => this.claimDeliveryUnit(jobId, userId, now, decide));
  }

  private claimDeliveryUnit<T>(jobId: number, userId: string, now: number, decide: DeliveryDecide<T>): Promise<{ value: T; attempts: number } | null> {
    return inTransaction(this.pool, async (tx) => {
      const found = await tx.query<OutboxDelivery>(
        `SELECT d.job_id AS "jobId", d.user_id AS "userId", d.channel_id AS "channelId", d.alert_id AS "alertId", d.attempts, j.kind
         FROM notification_deliveries d LEFT JOIN notification_jobs j ON j.id = d.job_id
         WHERE d.job_id = $1 AND d.user_id = $2 AND d.state = 'pending' FOR UPDATE OF d SKIP LOCKED`,
        [jobId, userId],
      );
      const delivery = found.rows[0];
      if (!delivery) return null;
      const alert = await this.alert(tx, delivery.alertId);
      const channel = await channelOf(tx, delivery.channelId);
      // Counted once: a retry of a delivery already let through is not a new e-mail for the guard.
      const window = delivery.attempts === 0 ? await this.window(tx, userId, delivery.channelId) : undefined;
      const decision = await this.decideWithin(tx, delivery.channelId, userId, () => decide({ delivery, alert, channel, window }));
      const set = (state: string, error: string | null, digestId: number | null) =>
        tx.query(
          `UPDATE notification_deliveries SET state = $1, last_error = $2, digest_id = COALESCE($3, digest_id), updated_at = $4
           WHERE job_id = $5 AND user_id = $6`,
          [state, error, digestId, now, jobId, userId],
        );
      if ('skip' in decision) {
        await set('skipped', decision.skip, null);
        return null;
      }
      const folded = decision.flood && (await this.applyFlood(tx, decision.flood, userId, delivery.channelId, now));
      if (folded) {
        await set('folded', null, folded);
        return null;
      }
      await tx.query(
        `UPDATE notification_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = $1 WHERE job_id = $2 AND user_id = $3 AND state = 'pending'`,
        [now, jobId, userId],
      );
      return { value: decision.send, attempts: delivery.attempts + 1 };
    });
  }

  async claimDigest<T>(digestId: number, now: number, decide: DigestDecide<T>): Promise<{ value: T; digest: OutboxDigest; attempts: number } | null> {
    return inTransaction(this.pool, async (tx) => {
      const found = await tx.query<OutboxDigest>(
        `SELECT id, user_id AS "userId", channel_id AS "channelId", window_start AS "windowStart", window_end AS "windowEnd", attempts
         FROM notification_digests WHERE id = $1 AND state = 'pending' FOR UPDATE SKIP LOCKED`,
        [digestId],
      );
      const digest = found.rows[0];
      if (!digest) return null;
      // Read under the digest's lock: a claim folding into it holds it FOR SHARE until its COMMIT, so every fold is in or waits.
      const alerts = await tx.query<AlertRow>(
        `SELECT ${PG_ALERT_COLUMNS} FROM alerts a WHERE a.id IN (SELECT alert_id FROM notification_deliveries WHERE digest_id = $1) ORDER BY a.id`,
        [digestId],
      );
      const channel = await channelOf(tx, digest.channelId);
      const decision = await this.decideWithin(tx, digest.channelId, digest.userId, () => decide({ digest, channel, alerts: alerts.rows }));
      if ('skip' in decision) {
        await tx.query(`UPDATE notification_digests SET state = 'skipped', last_error = $1, updated_at = $2 WHERE id = $3`, [decision.skip, now, digestId]);
        return null;
      }
      await tx.query(`UPDATE notification_digests SET state = 'sending', attempts = attempts + 1, updated_at = $1 WHERE id = $2 AND state = 'pending'`, [
        now,
        digestId,
      ]);
      return { value: decision.send, digest, attempts: digest.attempts + 1 };
    });
  }

  async startedMessageId(alertId: string, userId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ messageId: string }>(
      `SELECT d.message_id AS "messageId" FROM notification_deliveries d JOIN notification_jobs j ON j.id = d.job_id
       WHERE j.alert_id = $1 AND j.kind = 'workflow.started' AND d.user_id = $2 AND d.message_id IS NOT NULL LIMIT 1`,
      [alertId, userId],
    );
    return rows[0]?.messageId;
  }

  async attachmentsOf(alertId: string): Promise<AttachmentRow[]> {
    const { rows } = await this.pool.query<AttachmentRow>(`SELECT ${PG_ATTACHMENT_COLUMNS} FROM alert_attachments WHERE alert_id = $1 ORDER BY position`, [alertId]);
    return rows;
  }

  async recordSent(target: OutboxTarget, messageId: string, now: number): Promise<void> {
    await this.outcome(target, `state = 'sent', message_id = $1, last_error = NULL, updated_at = $2`, [messageId, now]);
  }

  async recordFailed(target: OutboxTarget, reason: string, now: number): Promise<void> {
    await this.outcome(target, `state = 'failed', last_error = $1, updated_at = $2`, [reason, now]);
  }

  async recordRetry(target: OutboxTarget, at: number, reason: string, now: number): Promise<void> {
    await this.outcome(target, `state = 'pending', next_attempt_at = $1, last_error = $2, updated_at = $3`, [at, reason, now]);
  }

  async nextDue(mail: boolean): Promise<number | null> {
    const { rows } = await this.pool.query<{ t: number | null }>(
      `SELECT min(t) AS t FROM (
         SELECT min(next_attempt_at) AS t FROM notification_jobs WHERE state = 'pending'
         UNION ALL SELECT min(next_attempt_at) FROM notification_deliveries WHERE state = 'pending' AND $1::boolean
         UNION ALL SELECT min(next_attempt_at) FROM notification_digests WHERE state = 'pending' AND $1::boolean) due`,
      [mail],
    );
    return rows[0]?.t ?? null;
  }

  async anythingDue(now: number, mail: boolean): Promise<boolean> {
    const { rows } = await this.pool.query<{ due: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM notification_jobs WHERE state = 'pending' AND next_attempt_at <= $1)
         OR ($2::boolean AND (EXISTS (SELECT 1 FROM notification_deliveries WHERE state = 'pending' AND next_attempt_at <= $1)
                           OR EXISTS (SELECT 1 FROM notification_digests WHERE state = 'pending' AND next_attempt_at <= $1))) AS due`,
      [now, mail],
    );
    return rows[0]?.due === true;
  }

  async prune(before: number, windowsBefore: number): Promise<void> {
    await inTransaction(this.pool, async (tx) => {
      await tx.query(
        `DELETE FROM notification_deliveries WHERE state IN ('sent', 'folded', 'skipped', 'failed')
         AND job_id IN (SELECT id FROM notification_jobs WHERE state IN ('done', 'failed') AND created_at < $1)`,
        [before],
      );
      await tx.query(
        `DELETE FROM notification_jobs WHERE state IN ('done', 'failed') AND created_at < $1
         AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.job_id = notification_jobs.id)`,
        [before],
      );
      await tx.query(`DELETE FROM notification_digests WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < $1`, [before]);
      await tx.query('DELETE FROM notification_flood_windows WHERE window_end < $1', [windowsBefore]);
    });
  }

  private async pendingJob(tx: Queryable, jobId: number): Promise<(OutboxJob & { attempts: number }) | undefined> {
    const { rows } = await tx.query<OutboxJob & { attempts: number }>(
      `SELECT id, alert_id AS "alertId", channel_id AS "channelId", kind, attempts FROM notification_jobs
       WHERE id = $1 AND state = 'pending' FOR UPDATE SKIP LOCKED`,
      [jobId],
    );
    return rows[0];
  }

  private async alert(tx: Queryable, alertId: string): Promise<AlertRow | undefined> {
    const { rows } = await tx.query<AlertRow>(`SELECT ${PG_ALERT_COLUMNS} FROM alerts a WHERE a.id = $1`, [alertId]);
    return rows[0];
  }

  /**
   * The recipient's window, read after taking its flood lock, and the state of its digest read
   * `FOR SHARE`: a digest another node is claiming is waited for and then seen `sending`, so no
   * e-mail is folded into a digest already on its way (the guard opens a new window instead).
   */
  private async window(tx: Queryable, userId: string, channelId: string): Promise<FloodWindow | undefined> {
    await lockFloodWindow(tx, 'mail', userId, channelId);
    const { rows } = await tx.query<Omit<FloodWindow, 'digestState'>>(
      `SELECT window_start AS "windowStart", window_end AS "windowEnd", sent, digest_id AS "digestId"
       FROM notification_flood_windows WHERE user_id = $1 AND channel_id = $2`,
      [userId, channelId],
    );
    const w = rows[0];
    if (!w) return undefined;
    if (w.digestId === null) return { ...w, digestState: null };
    const digest = await tx.query<{ state: string }>('SELECT state FROM notification_digests WHERE id = $1 FOR SHARE', [w.digestId]);
    return { ...w, digestState: digest.rows[0]?.state ?? null };
  }

  /** Applies a flood-guard step (under the window's lock); returns the digest id when the e-mail is folded into one. */
  private async applyFlood(tx: Queryable, step: FloodStep, userId: string, channelId: string, now: number): Promise<number | null> {
    switch (step.kind) {
      case 'open':
        await tx.query(
          `INSERT INTO notification_flood_windows (user_id, channel_id, window_start, window_end, sent, digest_id) VALUES ($1, $2, $3, $4, 1, NULL)
           ON CONFLICT (user_id, channel_id) DO UPDATE SET window_start = excluded.window_start, window_end = excluded.window_end, sent = 1, digest_id = NULL`,
          [userId, channelId, step.windowStart, step.windowEnd],
        );
        return null;
      case 'count':
        await tx.query('UPDATE notification_flood_windows SET sent = sent + 1 WHERE user_id = $1 AND channel_id = $2', [userId, channelId]);
        return null;
      case 'fold':
        return step.digestId;
      case 'new-digest': {
        // Due when the window closes.
        const { rows } = await tx.query<{ id: number }>(
          `INSERT INTO notification_digests (user_id, channel_id, window_start, window_end, state, attempts, next_attempt_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, 'pending', 0, $4, $5, $5) RETURNING id`,
          [userId, channelId, step.windowStart, step.windowEnd, now],
        );
        const id = rows[0]!.id;
        await tx.query('UPDATE notification_flood_windows SET digest_id = $1 WHERE user_id = $2 AND channel_id = $3', [id, userId, channelId]);
        return id;
      }
    }
  }

  private async outcome(target: OutboxTarget, set: string, params: unknown[]): Promise<void> {
    const n = params.length;
    if ('digestId' in target) await this.pool.query(`UPDATE notification_digests SET ${set} WHERE id = $${n + 1}`, [...params, target.digestId]);
    else await this.pool.query(`UPDATE notification_deliveries SET ${set} WHERE job_id = $${n + 1} AND user_id = $${n + 2}`, [...params, target.jobId, target.userId]);
  }
}

export async function channelOf(tx: Queryable, channelId: string): Promise<OutboxChannel | undefined> {
  const { rows } = await tx.query<OutboxChannel>(PG_CHANNEL_OF, [channelId]);
  return rows[0];
}
