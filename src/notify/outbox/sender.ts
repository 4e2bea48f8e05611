import type { AlertRow, NotificationKind, Outbox, OutboxChannel, OutboxTarget } from '../../domain/alert-store.js';
import { toAlertView, type AlertView } from '../../domain/alert-view.js';
import { backoffDelay, type RetryPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../lib/logger.js';
import { renderAlertEmail, renderDigestEmail, type EmailLinks, type RenderedEmail } from '../email-render.js';
import { describeError, isPermanentSmtpError, type Mailer, type MailMessage } from '../mailer.js';
import { levelAllows, type Recipient, type UnitRecipientRule } from '../../domain/notification-preferences.js';
import { effectiveLevel } from './fan-out.js';
import { floodStep } from './flood-guard.js';
import { escalationAudience, escalationLabel, escalationStale } from '../../domain/escalation/escalation-notice.js';

interface DeliveryClaim {
  recipient: Recipient;
  channel: OutboxChannel;
  kind: NotificationKind;
  alert: AlertRow;
  /** "Escalation 2 of 3" on an escalation step, else null. */
  escalation: string | null;
}

interface DigestClaim {
  recipient: Recipient;
  channel: OutboxChannel;
  rows: AlertRow[];
}

export interface SenderDeps {
  outbox: Pick<Outbox, 'claimDelivery' | 'claimDigest' | 'startedMessageId' | 'attachmentsOf' | 'recordSent' | 'recordFailed' | 'recordRetry'>;
  /** Read inside the claims' store units, synchronously (UnitRecipientRule). */
  prefs: Pick<UnitRecipientRule, 'recipientInUnit'>;
  mailer: Mailer;
  logger: Logger;
  now: () => number;
  mediaUrl: (key: string) => string;
  /** The host part of our Message-IDs. */
  messageHost: string;
  retry: RetryPolicy;
  random: () => number;
  flood: { limit: number; windowMs: number };
  /** The recipient's dashboard links for a channel, and the RFC 8058 List-Unsubscribe headers that go with them. */
  links: (userId: string, channelId: string, alertId?: string) => EmailLinks & { headers: Record<string, string> };
  /** Told each attempt's outcome (the metrics); must not throw. */
  onOutcome?: (outcome: 'sent' | 'retry' | 'failed') => void;
}

/**
 * Sends one delivery or one digest. Exactly once per (job, recipient): the
 * row is claimed (`sending`) in a transaction before the SMTP conversation
 * and marked `sent` after it; a row still `sending` at start was cut off by a
 * crash and is recorded as failed, never resent (the worker does that).
 */
export class OutboxSender {
  constructor(private readonly deps: SenderDeps) {}

  /**
   * Re-checks, inside the claim's transaction, that the recipient may still get
   * this (alert still there, visibility, preference, channel), applies the
   * flood guard on the first attempt, then sends.
   */
  async sendDelivery(jobId: number, userId: string): Promise<void> {
    const now = this.deps.now();
    const claim = await this.deps.outbox.claimDelivery<DeliveryClaim>(jobId, userId, now, ({ delivery, alert, channel, window }) => {
      if (!alert) return { skip: 'alert deleted before delivery' };
      const recipient = this.deps.prefs.recipientInUnit(delivery.channelId, userId);
      if (!recipient) return { skip: 'recipient can no longer see the channel' };
      const kind = delivery.kind ?? 'alert.created';
      const named = escalationAudience(delivery) !== null;
      if (!named && !levelAllows(recipient.level, effectiveLevel(kind, alert.level))) return { skip: `preference is now "${recipient.level}"` };
      if (!channel) return { skip: 'channel deleted' };
      const stale = kind === 'alert.escalated' ? escalationStale(alert, now) : null;
      if (stale) return { skip: stale };
      // An escalation step is never folded into a digest: it must say which step it is, and steps are minutes apart anyway.
      const flood = delivery.attempts === 0 && kind !== 'alert.escalated' ? floodStep(window, now, this.deps.flood.limit, this.deps.flood.windowMs) : null;
      return { send: { recipient, channel, kind, alert, escalation: escalationLabel(delivery) }, flood };
    });
    if (!claim) return;
    const target: OutboxTarget = { jobId, userId };
    const { recipient, channel, kind } = claim.value;
    let message: MailMessage;
    try {
      const alert = await this.view(claim.value.alert);
      // Action buttons while there is something to do: not on a resolved alert, nor on a chat message.
      const actionable = 'title' in alert && alert.status !== 'resolved' && kind !== 'alert.resolved';
      const links = this.deps.links(userId, alert.channelId, actionable ? alert.id : undefined);
      const email = renderAlertEmail({ alert, channel, kind, recipientLevel: recipient.level, recipientEmail: recipient.email, links, escalation: claim.value.escalation });
      const started = kind === 'workflow.finished' ? await this.deps.outbox.startedMessageId(alert.id, userId) : undefined;
      message = this.message(recipient, email, `n${jobId}.${userId}`, links.headers, alert, started ? [started] : undefined);
    } catch (err) {
      await this.finish(target, { error: err, attempts: claim.attempts, permanent: true });
      return;
    }
    await this.send(target, message, claim.attempts);
  }

  async sendDigest(id: number): Promise<void> {
    const claim = await this.deps.outbox.claimDigest<DigestClaim>(id, this.deps.now(), ({ digest, channel, alerts }) => {
      const recipient = this.deps.prefs.recipientInUnit(digest.channelId, digest.userId);
      if (!recipient) return { skip: 'recipient can no longer see the channel' };
      if (!channel) return { skip: 'channel deleted' };
      const rows = alerts.filter((r) => levelAllows(recipient.level, r.level));
      if (rows.length === 0) return { skip: 'nothing left to send (alerts deleted or preference changed)' };
      return { send: { recipient, channel, rows } };
    });
    if (!claim) return;
    const target: OutboxTarget = { digestId: id };
    const { recipient, channel, rows } = claim.value;
    let message: MailMessage;
    try {
      const links = this.deps.links(claim.digest.userId, claim.digest.channelId);
      const email = renderDigestEmail({
        channel,
        alerts: await Promise.all(rows.map((r) => this.view(r))),
        windowStart: claim.digest.windowStart,
        windowEnd: claim.digest.windowEnd,
        floodLimit: this.deps.flood.limit,
        recipientLevel: recipient.level,
        recipientEmail: recipient.email,
        links,
      });
      message = this.message(recipient, email, `digest${id}.${claim.digest.userId}`, links.headers);
    } catch (err) {
      await this.finish(target, { error: err, attempts: claim.attempts, permanent: true });
      return;
    }
    await this.send(target, message, claim.attempts);
  }

  private message(
    to: Recipient,
    email: RenderedEmail,
    localId: string,
    listHeaders: Record<string, string>,
    alert?: AlertView,
    references?: string[],
  ): MailMessage {
    return {
      to: to.name && !/[",<>]/.test(to.name) ? `"${to.name}" <${to.email}>` : to.email,
      subject: email.subject,
      text: email.text,
      html: email.html,
      // Deterministic per delivery: a receiving system can de-duplicate on it.
      messageId: `<${localId}@${this.deps.messageHost}>`,
      references,
      headers: {
        'Auto-Submitted': 'auto-generated',
        'X-Auto-Response-Suppress': 'All',
        ...listHeaders,
        ...(alert ? { 'X-Alertbridge-Alert': alert.id } : {}),
      },
    };
  }

  /**
   * Only the SMTP conversation can lead to a retry. Once the server accepted
   * the message, a failure to record `sent` must not resend it: the row stays
   * `sending`, which the next start records as interrupted, never resent.
   */
  private async send(target: OutboxTarget, message: MailMessage, attempts: number): Promise<void> {
    let info: { messageId: string };
    try {
      info = await this.deps.mailer.send(message);
    } catch (err) {
      await this.finish(target, { error: err, attempts, permanent: isPermanentSmtpError(err) });
      return;
    }
    this.deps.onOutcome?.('sent');
    try {
      await this.deps.outbox.recordSent(target, info.messageId, this.deps.now());
    } catch (err) {
      this.deps.logger.error(
        { ...target, attempts, err },
        'e-mail sent, but recording it failed; it stays "sending" and is recorded as interrupted at the next start, never resent',
      );
    }
  }

  /** Records a failed attempt: back to pending with a backoff, or failed for good with the reason. */
  private async finish(target: OutboxTarget, f: { error: unknown; attempts: number; permanent: boolean }): Promise<void> {
    const now = this.deps.now();
    const reason = describeError(f.error);
    const giveUp = f.permanent || f.attempts >= this.deps.retry.maxAttempts;
    if (giveUp) {
      const why = f.permanent ? `permanent failure: ${reason}` : `gave up after ${f.attempts} attempts: ${reason}`;
      this.deps.onOutcome?.('failed');
      await this.deps.outbox.recordFailed(target, why, now);
      this.deps.logger.error({ ...target, attempts: f.attempts, reason }, 'e-mail failed for good');
    } else {
      const at = now + backoffDelay(this.deps.retry, f.attempts, this.deps.random);
      this.deps.onOutcome?.('retry');
      await this.deps.outbox.recordRetry(target, at, reason, now);
      this.deps.logger.warn({ ...target, attempts: f.attempts, reason, retryInMs: at - now }, 'e-mail failed; will retry');
    }
  }

  /** The alert as e-mails show it (no per-user read state). */
  private async view(row: AlertRow): Promise<AlertView> {
    return toAlertView(row, await this.deps.outbox.attachmentsOf(row.id), false, this.deps.mediaUrl);
  }
}
