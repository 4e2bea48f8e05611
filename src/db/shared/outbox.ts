import type { AttachmentRow } from '../../domain/alert-rows.js';
import type {
  DeliveryDecide, DigestDecide, FanOutPlan, FanOutSubject, FloodStep, FloodWindow, JobRetry, Outbox, OutboxDigest, OutboxJob, OutboxTarget,
} from '../../domain/outbox-store.js';
import type { SqlExecutor, Step, TransactionSteps } from './executor.js';
import { InOrder } from './in-order.js';
import { ALERT_BY_ID, FLOOD_WINDOW_LOCK, OUTBOX_CHANNEL } from './outbox-steps.js';
import {
  ALERT_SUBJECT, ANYTHING_DUE, ATTACHMENTS_OF, CLAIM_DELIVERY, CLAIM_DIGEST, CLAIMABLE_DELIVERY, CLAIMABLE_DIGEST, COUNT_IN_WINDOW,
  DELIVERY_OUTCOME, DIGEST_ALERTS, DIGEST_OUTCOME, DIGEST_STATE, DUE_DELIVERIES, DUE_DIGESTS, DUE_JOBS, INSERT_DELIVERIES, INSERT_DIGEST,
  INSERT_PUSHES, JOB_DONE, JOB_RETRY, NEXT_DUE, OPEN_WINDOW, PENDING_JOB, PRUNE_DELIVERIES, PRUNE_DIGESTS, PRUNE_JOBS, PRUNE_WINDOWS,
  RECOVER_DELIVERIES, RECOVER_DIGESTS, SET_DELIVERY, SET_SILENCED_BY, SET_WINDOW_DIGEST, SKIP_DIGEST, STARTED_MESSAGE_ID, WINDOW,
} from './outbox-statements.js';
import type { LoadedUnitRecipients } from './preference-rows.js';
import { candidateSilences } from './silence-rows.js';
import { holdSteps } from './quiet-digests.js';
import { escalationMarkOf } from './escalation-rows.js';
import type { Silence } from '../../domain/silences.js';

/**
 * How long a row may stay `sending` on PostgreSQL before `recoverInterrupted` takes it for one
 * whose node died mid-send. Longer than any SMTP conversation can last (nodemailer gives up after
 * 2 min connecting and 10 min of socket silence), so a live node's send is never taken from it.
 */
export const MAIL_SEND_LEASE_MS = 30 * 60_000;

type FanOut = (job: OutboxJob, alert: FanOutSubject | undefined, silences: Silence[]) => FanOutPlan;

/**
 * The e-mail outbox on either engine (test/cluster/outbox-contract.test.ts runs the same cases on
 * both): `notification_jobs` (written by the alert writes), and the delivery, digest and
 * flood-window rows the worker keeps. Each method is one transaction that has committed when it
 * resolves. On SQLite that is one BEGIN IMMEDIATE, so nothing else writes in between. On
 * PostgreSQL every node may run the worker: claims read their row `FOR UPDATE SKIP LOCKED` inside
 * the claim's transaction (under READ COMMITTED a node that finds the row locked by another's claim
 * skips it at once, and one that reads it after that claim committed finds it no longer
 * `pending`), and every decision (skip, fold, flood step) is made and written while the row is
 * held, so exactly one node moves a row out of `pending`. A guarded `UPDATE … WHERE state =
 * 'pending'` alone would make the final state change exclusive, but not the reads and side effects
 * before it (two nodes could both count the flood window, or one fold a row the other sends).
 */
export class SqlOutbox implements Outbox {
  /** Delivery claims in the order the worker made them (src/db/shared/in-order.ts): what SQLite's synchronous transactions give anyway. */
  private readonly claims = new InOrder();
  private readonly sendLeaseMs: number;
  private readonly recipients: LoadedUnitRecipients | undefined;

  /** `recipients`: the recipient rule the decisions read inside each transaction (PostgreSQL; SQLite's decisions read their own synchronously). */
  constructor(
    private readonly database: SqlExecutor,
    opts: { sendLeaseMs?: number; recipients?: LoadedUnitRecipients } = {},
  ) {
    this.sendLeaseMs = opts.sendLeaseMs ?? MAIL_SEND_LEASE_MS;
    this.recipients = opts.recipients;
  }

  async recoverInterrupted(reason: string, now: number) {
    const params = { reason, now, claimedBefore: now - this.sendLeaseMs };
    return (await this.database.run(RECOVER_DELIVERIES, params)) + (await this.database.run(RECOVER_DIGESTS, params));
  }

  async dueJobs(now: number, limit: number) {
    return (await this.database.all(DUE_JOBS, { now, limit })).map((row) => row.id);
  }

  async fanOut(jobId: number, now: number, plan: FanOut) {
    await this.database.transaction((tx) => this.fanOutSteps(tx, jobId, now, plan));
  }

  retryJob(jobId: number, retry: (attempts: number) => JobRetry) {
    return this.database.transaction(function* (tx) {
      const job = yield* tx.get(PENDING_JOB, { jobId });
      if (!job) return undefined;
      const attempts = job.attempts + 1;
      const { giveUp, at, reason } = retry(attempts);
      yield* tx.run(JOB_RETRY, { jobId, state: giveUp ? 'failed' : 'pending', attempts, at, reason });
      return { attempts, giveUp };
    });
  }

  dueDeliveries(now: number, limit: number) {
    return this.database.all(DUE_DELIVERIES, { now, limit });
  }

  async dueDigests(now: number, limit: number) {
    return (await this.database.all(DUE_DIGESTS, { now, limit })).map((row) => row.id);
  }

  claimDelivery<T>(jobId: number, userId: string, now: number, decide: DeliveryDecide<T>) {
    return this.claims.run(() => this.database.transaction((tx) => this.claimDeliverySteps(tx, jobId, userId, now, decide)));
  }

  claimDigest<T>(digestId: number, now: number, decide: DigestDecide<T>) {
    return this.database.transaction((tx) => this.claimDigestSteps(tx, digestId, now, decide));
  }

  async startedMessageId(alertId: string, userId: string) {
    return (await this.database.get(STARTED_MESSAGE_ID, { alertId, userId }))?.messageId;
  }

  attachmentsOf(alertId: string): Promise<AttachmentRow[]> {
    return this.database.all(ATTACHMENTS_OF, { alertId });
  }

  async recordSent(target: OutboxTarget, messageId: string, now: number) {
    if ('digestId' in target) await this.database.run(DIGEST_OUTCOME.sent, { digestId: target.digestId, messageId, now });
    else await this.database.run(DELIVERY_OUTCOME.sent, { jobId: target.jobId, userId: target.userId, messageId, now });
  }

  async recordFailed(target: OutboxTarget, reason: string, now: number) {
    if ('digestId' in target) await this.database.run(DIGEST_OUTCOME.failed, { digestId: target.digestId, reason, now });
    else await this.database.run(DELIVERY_OUTCOME.failed, { jobId: target.jobId, userId: target.userId, reason, now });
  }

  async recordRetry(target: OutboxTarget, at: number, reason: string, now: number) {
    if ('digestId' in target) await this.database.run(DIGEST_OUTCOME.retry, { digestId: target.digestId, at, reason, now });
    else await this.database.run(DELIVERY_OUTCOME.retry, { jobId: target.jobId, userId: target.userId, at, reason, now });
  }

  async nextDue(mail: boolean) {
    return (await this.database.value(NEXT_DUE, { mail })) ?? null;
  }

  async anythingDue(now: number, mail: boolean) {
    return (await this.database.value(ANYTHING_DUE, { now, mail })) === true;
  }

  async prune(before: number, windowsBefore: number) {
    await this.database.transaction(function* (tx) {
      yield* tx.run(PRUNE_DELIVERIES, { before });
      yield* tx.run(PRUNE_JOBS, { before });
      yield* tx.run(PRUNE_DIGESTS, { before });
      yield* tx.run(PRUNE_WINDOWS, { before: windowsBefore });
    });
  }

  /** A decision, with the recipient rule read in `tx` first when there is one (everyone of the channel, or one user). */
  private *decided<T>(tx: TransactionSteps, channelId: string, userId: string | null, decide: () => T): Step<T> {
    return this.recipients ? yield* this.recipients.decideWithin(tx, channelId, userId, decide) : decide();
  }

  private *fanOutSteps(tx: TransactionSteps, jobId: number, now: number, plan: FanOut): Step<void> {
    const pending = yield* tx.get(PENDING_JOB, { jobId });
    if (!pending) return;
    const job = { ...pending, ...(yield* escalationMarkOf(tx, pending.kind, jobId)) };
    const alert = yield* tx.get(ALERT_SUBJECT, { alertId: job.alertId });
    const silences = alert ? yield* candidateSilences(tx, job.channelId, job.createdAt) : [];
    const decided = yield* this.decided(tx, job.channelId, null, () => plan(job, alert, silences));
    const { note, silencedBy } = decided;
    // Quiet hours: held alerts join their digest; a digest already on its way lets the alert through as usual.
    const late = decided.hold?.length ? yield* holdSteps(tx, decided.hold, { id: jobId, alertId: job.alertId, channelId: job.channelId }, now) : [];
    const deliverTo = [...decided.deliverTo, ...late];
    const pushTo = [...(decided.pushTo ?? []), ...late];
    if (alert && silencedBy !== undefined && (silencedBy?.id ?? null) !== alert.silencedBy) {
      yield* tx.run(SET_SILENCED_BY, { alertId: job.alertId, silenceId: silencedBy?.id ?? null, comment: silencedBy?.comment ?? null });
    }
    const rows = { jobId, channelId: job.channelId, alertId: job.alertId, now };
    if (deliverTo.length > 0) yield* tx.run(INSERT_DELIVERIES, { ...rows, userIds: deliverTo });
    if (pushTo.length > 0) yield* tx.run(INSERT_PUSHES, { ...rows, kind: job.kind, userIds: pushTo });
    yield* tx.run(JOB_DONE, { jobId, note });
  }

  private *claimDeliverySteps<T>(
    tx: TransactionSteps,
    jobId: number,
    userId: string,
    now: number,
    decide: DeliveryDecide<T>,
  ): Step<{ value: T; attempts: number } | null> {
    const row = yield* tx.get(CLAIMABLE_DELIVERY, { jobId, userId });
    if (!row) return null;
    const delivery = { ...row, ...(yield* escalationMarkOf(tx, row.kind, jobId)) };
    const { channelId } = delivery;
    const alert = yield* tx.get(ALERT_BY_ID, { alertId: delivery.alertId });
    const channel = yield* tx.get(OUTBOX_CHANNEL, { channelId });
    // Counted once: a retry of a delivery already let through is not a new e-mail for the guard.
    const window = delivery.attempts === 0 ? yield* windowSteps(tx, userId, channelId) : undefined;
    const decision = yield* this.decided(tx, channelId, userId, () => decide({ delivery, alert, channel, window }));
    const set = (state: string, error: string | null, digestId: number | null) =>
      tx.run(SET_DELIVERY, { jobId, userId, state, error, digestId, now });
    if ('skip' in decision) {
      yield* set('skipped', decision.skip, null);
      return null;
    }
    const folded = decision.flood ? yield* floodSteps(tx, decision.flood, userId, channelId, now) : null;
    if (folded) {
      yield* set('folded', null, folded);
      return null;
    }
    yield* tx.run(CLAIM_DELIVERY, { jobId, userId, now });
    return { value: decision.send, attempts: delivery.attempts + 1 };
  }

  private *claimDigestSteps<T>(
    tx: TransactionSteps,
    digestId: number,
    now: number,
    decide: DigestDecide<T>,
  ): Step<{ value: T; digest: OutboxDigest; attempts: number } | null> {
    const digest = yield* tx.get(CLAIMABLE_DIGEST, { digestId });
    if (!digest) return null;
    // Read under the digest's lock on PostgreSQL: a claim folding into it holds it FOR SHARE until its COMMIT, so every fold is in or waits.
    const alerts = yield* tx.all(DIGEST_ALERTS, { digestId });
    const channel = yield* tx.get(OUTBOX_CHANNEL, { channelId: digest.channelId });
    const decision = yield* this.decided(tx, digest.channelId, digest.userId, () => decide({ digest, channel, alerts }));
    if ('skip' in decision) {
      yield* tx.run(SKIP_DIGEST, { digestId, reason: decision.skip, now });
      return null;
    }
    yield* tx.run(CLAIM_DIGEST, { digestId, now });
    return { value: decision.send, digest, attempts: digest.attempts + 1 };
  }
}

/**
 * The recipient's flood window, read after taking its lock (PostgreSQL; SQLite's BEGIN IMMEDIATE
 * already makes claims one at a time), with the state of its digest, read `FOR SHARE` on
 * PostgreSQL: a digest another node is claiming is waited for and then seen `sending`, so no
 * e-mail is folded into a digest already on its way (the guard opens a new window instead).
 */
function* windowSteps(tx: TransactionSteps, userId: string, channelId: string): Step<FloodWindow | undefined> {
  yield* tx.run(FLOOD_WINDOW_LOCK, { kind: 'mail', userId, channelId });
  const window = yield* tx.get(WINDOW, { userId, channelId });
  if (!window) return undefined;
  if (window.digestId === null) return { ...window, digestState: null };
  const digest = yield* tx.get(DIGEST_STATE, { digestId: window.digestId });
  return { ...window, digestState: digest?.state ?? null };
}

/** Applies a flood-guard step (under the window's lock); the digest id when the e-mail is folded into one. */
function* floodSteps(tx: TransactionSteps, step: FloodStep, userId: string, channelId: string, now: number): Step<number | null> {
  switch (step.kind) {
    case 'open':
      yield* tx.run(OPEN_WINDOW, { userId, channelId, windowStart: step.windowStart, windowEnd: step.windowEnd });
      return null;
    case 'count':
      yield* tx.run(COUNT_IN_WINDOW, { userId, channelId });
      return null;
    case 'fold':
      return step.digestId;
    case 'new-digest': {
      const digestId = (yield* tx.value(INSERT_DIGEST, { userId, channelId, windowStart: step.windowStart, windowEnd: step.windowEnd, now }))!;
      yield* tx.run(SET_WINDOW_DIGEST, { userId, channelId, digestId });
      return digestId;
    }
  }
}
