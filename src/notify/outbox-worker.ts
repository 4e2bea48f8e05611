import PQueue from 'p-queue';
import type Database from 'better-sqlite3';
import { ALERT_COLUMNS, toAlertView, type AlertRow, type AlertView, type AttachmentRow } from '../domain/alert-view.js';
import type { NotificationKind } from '../domain/changes.js';
import { LEVEL_OF_RUN_STATE } from '../domain/webhook/ingest.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { BackgroundPart } from '../runtime.js';
import type { Services } from '../services.js';
import { backoffDelay, DEFAULT_RETRY, type RetryPolicy } from './backoff.js';
import { renderAlertEmail, renderDigestEmail, type ChannelInfo, type RenderedEmail } from './email-render.js';
import { describeError, isPermanentSmtpError, SmtpMailer, type Mailer, type MailMessage } from './mailer.js';
import { levelAllows, type AlertLevel, type NotificationPreferences, type Recipient } from './preferences.js';

/** Past this many individual e-mails per recipient per channel per window, the rest go into one digest. */
export const FLOOD_LIMIT = 5;
export const FLOOD_WINDOW_MS = 60_000;
/** SMTP conversations in flight at once. */
const SEND_CONCURRENCY = 4;
/** Safety-net wake-up: catches jobs written by another process (the CLI) whose bus event we never see. */
const POLL_INTERVAL_MS = 30_000;
/** Finished jobs, delivery records and digests are kept this long, then pruned. */
const NOTIFY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_INTERVAL_MS = 60 * 60_000;
const BATCH = 200;

export const INTERRUPTED =
  'interrupted mid-send (the process stopped between claiming and recording the send); not retried, so that no one gets it twice';

export interface NotifierOptions {
  /** null: e-mail is off; jobs are marked done without deliveries. */
  mailer: Mailer | null;
  concurrency: number;
  retry: RetryPolicy;
  floodLimit: number;
  floodWindowMs: number;
  pollIntervalMs: number;
  retentionMs: number;
  clock: Clock;
  random: () => number;
  /** Told each attempt's outcome (the metrics); must not throw. */
  onOutcome?: (outcome: 'sent' | 'retry' | 'failed') => void;
}

export type NotifierDeps = Pick<Services, 'db' | 'bus' | 'clock' | 'logger' | 'config' | 'media' | 'notifyPrefs'>;

interface DeliveryRow {
  jobId: number;
  userId: string;
  channelId: string;
  alertId: string;
  attempts: number;
  kind: NotificationKind | null;
}

interface DigestRow {
  id: number;
  userId: string;
  channelId: string;
  windowStart: number;
  windowEnd: number;
  attempts: number;
}

type Outcome = { table: 'notification_deliveries'; key: [number, string] } | { table: 'notification_digests'; key: [number] };

/**
 * The outbox worker. The database is the queue: `notification_jobs` rows are
 * written by ingest in the alert's own transaction; this worker fans each due
 * job out into one `notification_deliveries` row per eligible recipient (and
 * marks the job done in the same transaction), then sends the due deliveries
 * through a p-queue that only bounds concurrency. Every state it needs lives in
 * those rows, so start() rebuilds from them and a restart loses nothing.
 *
 * Exactly once per (job, recipient): the delivery row is claimed (`sending`)
 * in a transaction before the SMTP conversation and marked `sent` after it. A
 * row still `sending` at start was cut off by a crash; it is recorded as failed
 * and never resent. So the only window is a crash during the SMTP
 * conversation itself, and it errs towards "not twice" (the rule).
 */
export class Notifier implements BackgroundPart {
  readonly name = 'notifier';
  readonly options: NotifierOptions;
  private readonly sqlite: Database.Database;
  private readonly logger: Logger;
  private readonly prefs: NotificationPreferences;
  private readonly queue: PQueue;
  private readonly inFlight = new Set<string>();
  private readonly s;
  /** What a finished attempt writes, per outbox table (delivery rows and digests share the send path). */
  private readonly outcomes: Record<Outcome['table'], { sent: Database.Statement; failed: Database.Statement; retry: Database.Statement }>;
  private readonly tx;
  private readonly onBus = () => this.wake();
  private readonly messageHost: string;
  private timer: NodeJS.Timeout | undefined;
  private wakeQueued = false;
  private stopped = true;
  private lastPrune = 0;

  constructor(
    private readonly deps: NotifierDeps,
    options: Partial<NotifierOptions> & { mailer: Mailer | null },
  ) {
    this.options = {
      concurrency: SEND_CONCURRENCY,
      retry: DEFAULT_RETRY,
      floodLimit: FLOOD_LIMIT,
      floodWindowMs: FLOOD_WINDOW_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
      retentionMs: NOTIFY_RETENTION_MS,
      clock: deps.clock,
      random: Math.random,
      ...options,
    };
    this.sqlite = deps.db.sqlite;
    this.logger = deps.logger.child({ part: 'notifier' });
    this.prefs = deps.notifyPrefs;
    this.queue = new PQueue({ concurrency: this.options.concurrency });
    this.messageHost = hostOf(deps.config.publicUrl);
    const p = (sql: string) => this.sqlite.prepare(sql);
    this.s = {
      dueJobs: p(`SELECT id FROM notification_jobs WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT ${BATCH}`),
      job: p(`SELECT id, alert_id AS alertId, channel_id AS channelId, kind, attempts FROM notification_jobs WHERE id = ? AND state = 'pending'`),
      jobDone: p(`UPDATE notification_jobs SET state = 'done', attempts = attempts + 1, last_error = ? WHERE id = ?`),
      jobRetry: p(`UPDATE notification_jobs SET state = ?, attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`),
      alertLevel: p(`SELECT level, workflow_run_id AS runId FROM alerts WHERE id = ?`),
      insertDelivery: p(
        `INSERT OR IGNORE INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      ),
      dueDeliveries: p(
        `SELECT job_id AS jobId, user_id AS userId FROM notification_deliveries
         WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, job_id LIMIT ?`,
      ),
      delivery: p(
        `SELECT d.job_id AS jobId, d.user_id AS userId, d.channel_id AS channelId, d.alert_id AS alertId, d.attempts, j.kind
         FROM notification_deliveries d LEFT JOIN notification_jobs j ON j.id = d.job_id
         WHERE d.job_id = ? AND d.user_id = ? AND d.state = 'pending'`,
      ),
      setDelivery: p(
        `UPDATE notification_deliveries SET state = @state, last_error = @error, digest_id = COALESCE(@digestId, digest_id), updated_at = @now
         WHERE job_id = @jobId AND user_id = @userId`,
      ),
      claimDelivery: p(
        `UPDATE notification_deliveries SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE job_id = ? AND user_id = ? AND state = 'pending'`,
      ),
      dueDigests: p(`SELECT id FROM notification_digests WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`),
      digest: p(
        `SELECT id, user_id AS userId, channel_id AS channelId, window_start AS windowStart, window_end AS windowEnd, attempts
         FROM notification_digests WHERE id = ? AND state = 'pending'`,
      ),
      digestAlerts: p(
        `SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id IN (SELECT alert_id FROM notification_deliveries WHERE digest_id = ?) ORDER BY a.id`,
      ),
      claimDigest: p(`UPDATE notification_digests SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE id = ? AND state = 'pending'`),
      setDigest: p(`UPDATE notification_digests SET state = ?, last_error = ?, updated_at = ? WHERE id = ?`),
      window: p(
        `SELECT w.window_start AS windowStart, w.window_end AS windowEnd, w.sent, w.digest_id AS digestId, g.state AS digestState
         FROM notification_flood_windows w LEFT JOIN notification_digests g ON g.id = w.digest_id
         WHERE w.user_id = ? AND w.channel_id = ?`,
      ),
      openWindow: p(
        `INSERT INTO notification_flood_windows (user_id, channel_id, window_start, window_end, sent, digest_id) VALUES (?, ?, ?, ?, 1, NULL)
         ON CONFLICT (user_id, channel_id) DO UPDATE SET window_start = excluded.window_start, window_end = excluded.window_end, sent = 1, digest_id = NULL`,
      ),
      countInWindow: p(`UPDATE notification_flood_windows SET sent = sent + 1 WHERE user_id = ? AND channel_id = ?`),
      insertDigest: p(
        `INSERT INTO notification_digests (user_id, channel_id, window_start, window_end, state, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      ),
      setWindowDigest: p(`UPDATE notification_flood_windows SET digest_id = ? WHERE user_id = ? AND channel_id = ?`),
      alert: p(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id = ?`),
      attachments: p(
        `SELECT alert_id AS alertId, position, media_key AS mediaKey, mime, kind, name, size FROM alert_attachments WHERE alert_id = ? ORDER BY position`,
      ),
      channel: p(
        `SELECT c.name, c.slug, c.icon, w.name AS workspaceName FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.id = ?`,
      ),
      startedMessageId: p(
        `SELECT d.message_id AS messageId FROM notification_deliveries d JOIN notification_jobs j ON j.id = d.job_id
         WHERE j.alert_id = ? AND j.kind = 'workflow.started' AND d.user_id = ? AND d.message_id IS NOT NULL`,
      ),
      nextDue: p(
        `SELECT min(t) AS t FROM (
           SELECT min(next_attempt_at) AS t FROM notification_jobs WHERE state = 'pending'
           UNION ALL SELECT min(next_attempt_at) FROM notification_deliveries WHERE state = 'pending' AND @mail
           UNION ALL SELECT min(next_attempt_at) FROM notification_digests WHERE state = 'pending' AND @mail)`,
      ),
      recoverDeliveries: p(`UPDATE notification_deliveries SET state = 'failed', last_error = ?, updated_at = ? WHERE state = 'sending'`),
      recoverDigests: p(`UPDATE notification_digests SET state = 'failed', last_error = ?, updated_at = ? WHERE state = 'sending'`),
      pruneDeliveries: p(
        `DELETE FROM notification_deliveries WHERE state IN ('sent', 'folded', 'skipped', 'failed')
         AND job_id IN (SELECT id FROM notification_jobs WHERE state IN ('done', 'failed') AND created_at < ?)`,
      ),
      pruneJobs: p(
        `DELETE FROM notification_jobs WHERE state IN ('done', 'failed') AND created_at < ?
         AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.job_id = notification_jobs.id)`,
      ),
      pruneDigests: p(`DELETE FROM notification_digests WHERE state IN ('sent', 'skipped', 'failed') AND updated_at < ?`),
      pruneWindows: p('DELETE FROM notification_flood_windows WHERE window_end < ?'),
    };
    const outcomeStatements = (table: Outcome['table']) => {
      const where = table === 'notification_deliveries' ? 'job_id = ? AND user_id = ?' : 'id = ?';
      return {
        sent: p(`UPDATE ${table} SET state = 'sent', message_id = ?, last_error = NULL, updated_at = ? WHERE ${where}`),
        failed: p(`UPDATE ${table} SET state = 'failed', last_error = ?, updated_at = ? WHERE ${where}`),
        retry: p(`UPDATE ${table} SET state = 'pending', next_attempt_at = ?, last_error = ?, updated_at = ? WHERE ${where}`),
      };
    };
    this.outcomes = { notification_deliveries: outcomeStatements('notification_deliveries'), notification_digests: outcomeStatements('notification_digests') };
    const db = this.sqlite;
    this.tx = {
      fanOut: db.transaction((jobId: number, now: number) => this.fanOut(jobId, now)),
      claimDelivery: db.transaction((jobId: number, userId: string) => this.claimDelivery(jobId, userId)),
      claimDigest: db.transaction((id: number) => this.claimDigest(id)),
      prune: db.transaction((now: number) => this.prune(now)),
    };
  }

  get emailEnabled(): boolean {
    return this.options.mailer !== null;
  }

  /** Rebuilds from the database and starts listening. Returns this for chaining. */
  start(): this {
    if (!this.stopped) return this;
    const now = this.now();
    const interrupted =
      this.s.recoverDeliveries.run(INTERRUPTED, now).changes + this.s.recoverDigests.run(INTERRUPTED, now).changes;
    if (interrupted > 0) this.logger.warn({ interrupted }, 'e-mails interrupted by a crash mid-send are recorded as failed, not resent');
    if (!this.options.mailer) this.logger.info('e-mail off: set SMTP_URL');
    this.stopped = false;
    this.deps.bus.on('notifications', this.onBus);
    this.wake();
    return this;
  }

  /** Stops taking work and waits for the SMTP conversations in flight. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.deps.bus.off('notifications', this.onBus);
    clearTimeout(this.timer);
    // Queued-but-not-started tasks have not claimed anything: their rows stay pending for the next start.
    this.queue.clear();
    await this.queue.onIdle();
    this.options.mailer?.close();
  }

  /** Schedules a pass over due work (coalesced: many wake-ups in one turn make one pass). */
  wake(): void {
    if (this.wakeQueued || this.stopped) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.pump();
    });
  }

  /**
   * Resolves once nothing is due now and nothing is in flight. For tests and
   * diagnostics; retries scheduled in the future do not count as due.
   */
  async whenIdle(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      await this.queue.onIdle();
      if (this.stopped || (!this.wakeQueued && this.inFlight.size === 0 && !this.anythingDue())) return;
      this.wake();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  private now(): number {
    return this.options.clock.now();
  }

  private pump(): void {
    if (this.stopped) return;
    const now = this.now();
    try {
      this.fanOutDue(now);
      if (this.options.mailer) this.enqueueDue(now);
      if (now - this.lastPrune >= PRUNE_INTERVAL_MS) {
        this.lastPrune = now;
        this.tx.prune(now);
      }
    } catch (err) {
      this.logger.error({ err }, 'notification pass failed');
    }
    this.arm(now);
  }

  private anythingDue(): boolean {
    const now = this.now();
    if ((this.s.dueJobs.all(now) as unknown[]).length > 0) return true;
    if (!this.options.mailer) return false;
    return (this.s.dueDeliveries.all(now, 1) as unknown[]).length > 0 || (this.s.dueDigests.all(now, 1) as unknown[]).length > 0;
  }

  /**
   * Sleeps until the earliest future due time, never longer than the poll
   * interval. `now` must be the time this pass enqueued with: a row that became
   * due since then is in the future for it, so it gets a short timer instead of
   * waiting for the poll.
   */
  private arm(now: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const next = (this.s.nextDue.get({ mail: this.options.mailer ? 1 : 0 }) as { t: number | null }).t;
    // Work due at `now` is either in flight or waiting for queue room: its completion wakes us.
    const delay = next === null || next <= now ? this.options.pollIntervalMs : Math.min(next - now, this.options.pollIntervalMs);
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }

  /* ------------------------------------------------------------ fan-out */

  private fanOutDue(now: number): void {
    const ids = this.s.dueJobs.all(now) as { id: number }[];
    for (const { id } of ids) {
      try {
        this.tx.fanOut.immediate(id, now);
      } catch (err) {
        this.failJob(id, err, now);
      }
    }
    if (ids.length === BATCH) this.wake();
  }

  /**
   * One transaction: the recipients' delivery rows and the job's `done`. The
   * job is done once fanned out; each delivery then carries its own state.
   */
  private fanOut(jobId: number, now: number): void {
    const job = this.s.job.get(jobId) as { id: number; alertId: string; channelId: string; kind: NotificationKind } | undefined;
    if (!job) return;
    if (!this.options.mailer) {
      this.s.jobDone.run('e-mail off (no SMTP_URL): nothing sent', jobId);
      return;
    }
    const alert = this.s.alertLevel.get(job.alertId) as { level: AlertLevel; runId: string | null } | undefined;
    if (!alert) {
      this.s.jobDone.run('alert deleted before delivery', jobId);
      return;
    }
    const level = effectiveLevel(job.kind, alert.level);
    for (const r of this.prefs.recipients(job.channelId)) {
      if (levelAllows(r.level, level)) this.s.insertDelivery.run(jobId, r.userId, job.channelId, job.alertId, now, now, now);
    }
    this.s.jobDone.run(null, jobId);
  }

  private failJob(id: number, err: unknown, now: number): void {
    const job = this.s.job.get(id) as { attempts: number } | undefined;
    if (!job) return;
    const attempts = job.attempts + 1;
    const giveUp = attempts >= this.options.retry.maxAttempts;
    const reason = describeError(err);
    this.s.jobRetry.run(giveUp ? 'failed' : 'pending', attempts, now + backoffDelay(this.options.retry, attempts, this.options.random), reason, id);
    this.logger[giveUp ? 'error' : 'warn']({ jobId: id, attempts, err }, giveUp ? 'notification job failed for good' : 'notification job failed; will retry');
  }

  /* ------------------------------------------------------------ sending */

  private enqueueDue(now: number): void {
    const room = this.options.concurrency * 2 - (this.queue.size + this.queue.pending);
    if (room <= 0) return;
    const limit = room + this.inFlight.size;
    let added = 0;
    for (const d of this.s.dueDeliveries.all(now, limit) as { jobId: number; userId: string }[]) {
      if (added >= room) break;
      if (this.enqueue(`d:${d.jobId}:${d.userId}`, () => this.sendDelivery(d.jobId, d.userId))) added++;
    }
    for (const g of this.s.dueDigests.all(now, limit) as { id: number }[]) {
      if (added >= room) break;
      if (this.enqueue(`g:${g.id}`, () => this.sendDigest(g.id))) added++;
    }
  }

  private enqueue(key: string, task: () => Promise<void>): boolean {
    if (this.inFlight.has(key)) return false;
    this.inFlight.add(key);
    void this.queue.add(async () => {
      try {
        await task();
      } catch (err) {
        this.logger.error({ err, key }, 'notification send crashed');
      } finally {
        this.inFlight.delete(key);
        this.wake();
      }
    });
    return true;
  }

  private async sendDelivery(jobId: number, userId: string): Promise<void> {
    const claim = this.tx.claimDelivery.immediate(jobId, userId);
    if (!claim) return;
    const outcome: Outcome = { table: 'notification_deliveries', key: [jobId, userId] };
    let message: MailMessage;
    try {
      const email = renderAlertEmail({
        alert: claim.alert,
        channel: claim.channel,
        kind: claim.kind,
        recipientLevel: claim.recipient.level,
        recipientEmail: claim.recipient.email,
      });
      const started = claim.kind === 'workflow.finished' ? (this.s.startedMessageId.get(claim.alert.id, userId) as { messageId: string } | undefined) : undefined;
      message = this.message(claim.recipient, email, `n${jobId}.${userId}`, claim.alert, started ? [started.messageId] : undefined);
    } catch (err) {
      this.finish(outcome, { error: err, attempts: claim.attempts, permanent: true });
      return;
    }
    await this.send(outcome, message, claim.attempts);
  }

  /**
   * Inside one transaction: re-check that the recipient may still get this
   * (visibility, preference, alert still there), apply the flood guard on the
   * first attempt, then claim the row. Returns what to send, or null.
   */
  private claimDelivery(jobId: number, userId: string) {
    const d = this.s.delivery.get(jobId, userId) as DeliveryRow | undefined;
    if (!d) return null;
    const now = this.now();
    const skip = (why: string) => {
      this.s.setDelivery.run({ state: 'skipped', error: why, digestId: null, now, jobId, userId });
      return null;
    };
    const row = this.s.alert.get(d.alertId) as AlertRow | undefined;
    if (!row) return skip('alert deleted before delivery');
    const recipient = this.prefs.recipient(d.channelId, userId);
    if (!recipient) return skip('recipient can no longer see the channel');
    const kind = d.kind ?? 'alert.created';
    if (!levelAllows(recipient.level, effectiveLevel(kind, row.level))) return skip(`preference is now "${recipient.level}"`);
    const channel = this.s.channel.get(d.channelId) as ChannelInfo | undefined;
    if (!channel) return skip('channel deleted');
    // Counted once: a retry of a delivery already let through is not a new e-mail for the guard.
    if (d.attempts === 0) {
      const digestId = this.floodGuard(userId, d.channelId, now);
      if (digestId !== null) {
        this.s.setDelivery.run({ state: 'folded', error: null, digestId, now, jobId, userId });
        return null;
      }
    }
    this.s.claimDelivery.run(now, jobId, userId);
    return { recipient, channel, kind, attempts: d.attempts + 1, alert: this.view(row) };
  }

  /**
   * Fixed windows per (recipient, channel): the first e-mail opens a window of
   * `floodWindowMs`; the first `floodLimit` in it go out, the rest are folded
   * into the window's digest, due when the window closes. Returns the digest
   * id when folded, null when the e-mail may go out.
   */
  private floodGuard(userId: string, channelId: string, now: number): number | null {
    const { floodLimit, floodWindowMs } = this.options;
    const w = this.s.window.get(userId, channelId) as
      | { windowStart: number; windowEnd: number; sent: number; digestId: number | null; digestState: string | null }
      | undefined;
    const closed = !w || now >= w.windowEnd || (w.digestId !== null && w.digestState !== 'pending');
    if (closed) {
      this.s.openWindow.run(userId, channelId, now, now + floodWindowMs);
      return null;
    }
    if (w.sent < floodLimit) {
      this.s.countInWindow.run(userId, channelId);
      return null;
    }
    if (w.digestId !== null) return w.digestId;
    const id = Number(this.s.insertDigest.run(userId, channelId, w.windowStart, w.windowEnd, w.windowEnd, now, now).lastInsertRowid);
    this.s.setWindowDigest.run(id, userId, channelId);
    return id;
  }

  private async sendDigest(id: number): Promise<void> {
    const claim = this.tx.claimDigest.immediate(id);
    if (!claim) return;
    const outcome: Outcome = { table: 'notification_digests', key: [id] };
    let message: MailMessage;
    try {
      const email = renderDigestEmail({
        channel: claim.channel,
        alerts: claim.alerts,
        windowStart: claim.digest.windowStart,
        windowEnd: claim.digest.windowEnd,
        floodLimit: this.options.floodLimit,
        recipientLevel: claim.recipient.level,
        recipientEmail: claim.recipient.email,
      });
      message = this.message(claim.recipient, email, `digest${id}.${claim.digest.userId}`);
    } catch (err) {
      this.finish(outcome, { error: err, attempts: claim.attempts, permanent: true });
      return;
    }
    await this.send(outcome, message, claim.attempts);
  }

  private claimDigest(id: number) {
    const g = this.s.digest.get(id) as DigestRow | undefined;
    if (!g) return null;
    const now = this.now();
    const skip = (why: string) => {
      this.s.setDigest.run('skipped', why, now, id);
      return null;
    };
    const recipient = this.prefs.recipient(g.channelId, g.userId);
    if (!recipient) return skip('recipient can no longer see the channel');
    const channel = this.s.channel.get(g.channelId) as ChannelInfo | undefined;
    if (!channel) return skip('channel deleted');
    const rows = (this.s.digestAlerts.all(id) as AlertRow[]).filter((r) => levelAllows(recipient.level, r.level));
    if (rows.length === 0) return skip('nothing left to send (alerts deleted or preference changed)');
    this.s.claimDigest.run(now, id);
    return { digest: g, recipient, channel, alerts: rows.map((r) => this.view(r)), attempts: g.attempts + 1 };
  }

  private message(to: Recipient, email: RenderedEmail, localId: string, alert?: AlertView, references?: string[]): MailMessage {
    return {
      to: to.name && !/[",<>]/.test(to.name) ? `"${to.name}" <${to.email}>` : to.email,
      subject: email.subject,
      text: email.text,
      html: email.html,
      // Deterministic per delivery: a receiving system can de-duplicate on it.
      messageId: `<${localId}@${this.messageHost}>`,
      references,
      headers: {
        'Auto-Submitted': 'auto-generated',
        'X-Auto-Response-Suppress': 'All',
        ...(alert ? { 'X-Alertbridge-Alert': alert.id } : {}),
      },
    };
  }

  /**
   * Only the SMTP conversation can lead to a retry. Once the server accepted
   * the message, a failure to record `sent` must not resend it: the row stays
   * `sending`, which the next start records as interrupted, never resent.
   */
  private async send(outcome: Outcome, message: MailMessage, attempts: number): Promise<void> {
    let info: { messageId: string };
    try {
      info = await this.options.mailer!.send(message);
    } catch (err) {
      this.finish(outcome, { error: err, attempts, permanent: isPermanentSmtpError(err) });
      return;
    }
    try {
      this.options.onOutcome?.('sent');
      this.outcomes[outcome.table].sent.run(info.messageId, this.now(), ...outcome.key);
    } catch (err) {
      this.logger.error(
        { ...keyLog(outcome), attempts, err },
        'e-mail sent, but recording it failed; it stays "sending" and is recorded as interrupted at the next start, never resent',
      );
    }
  }

  /** Records a failed attempt: back to pending with a backoff, or failed for good with the reason. */
  private finish(outcome: Outcome, f: { error: unknown; attempts: number; permanent: boolean }): void {
    const now = this.now();
    const reason = describeError(f.error);
    const giveUp = f.permanent || f.attempts >= this.options.retry.maxAttempts;
    if (giveUp) {
      const why = f.permanent ? `permanent failure: ${reason}` : `gave up after ${f.attempts} attempts: ${reason}`;
      this.options.onOutcome?.('failed');
      this.outcomes[outcome.table].failed.run(why, now, ...outcome.key);
      this.logger.error({ ...keyLog(outcome), attempts: f.attempts, reason }, 'e-mail failed for good');
    } else {
      const at = now + backoffDelay(this.options.retry, f.attempts, this.options.random);
      this.options.onOutcome?.('retry');
      this.outcomes[outcome.table].retry.run(at, reason, now, ...outcome.key);
      this.logger.warn({ ...keyLog(outcome), attempts: f.attempts, reason, retryInMs: at - now }, 'e-mail failed; will retry');
    }
  }

  private view(row: AlertRow): AlertView {
    const atts = this.s.attachments.all(row.id) as AttachmentRow[];
    return toAlertView(row, atts, false, (key) => this.deps.media.urlFor(key));
  }

  /* ------------------------------------------------------------ retention */

  /** Runs inside `tx.prune` (one transaction). */
  private prune(now: number): void {
    const before = now - this.options.retentionMs;
    this.s.pruneDeliveries.run(before);
    this.s.pruneJobs.run(before);
    this.s.pruneDigests.run(before);
    this.s.pruneWindows.run(now - this.options.floodWindowMs);
  }
}

/** A started job is about the run's start, whatever the row says by now (INFO); otherwise the row's level. */
function effectiveLevel(kind: NotificationKind, level: AlertLevel): AlertLevel {
  return kind === 'workflow.started' ? LEVEL_OF_RUN_STATE.running : level;
}

function keyLog(o: Outcome) {
  return o.table === 'notification_deliveries' ? { jobId: o.key[0], userId: o.key[1] } : { digestId: o.key[0] };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'alertbridge.local';
  } catch {
    return 'alertbridge.local';
  }
}

/**
 * The worker as the runtime starts it: SMTP from SMTP_URL/MAIL_FROM, or e-mail
 * off (logged once) when SMTP_URL is unset.
 */
export function startNotifier(s: NotifierDeps, options: Partial<NotifierOptions> = {}): Notifier {
  const mailer = options.mailer !== undefined ? options.mailer : s.config.smtpUrl ? new SmtpMailer(s.config.smtpUrl, s.config.mailFrom) : null;
  return new Notifier(s, { ...options, mailer }).start();
}
