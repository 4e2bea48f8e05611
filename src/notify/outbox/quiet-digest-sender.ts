import type { HeldAlert, QuietDigestOutbox, QuietDigestOwner } from '../../domain/quiet-digests.js';
import { levelAllows } from '../../domain/notification-preferences.js';
import { formatMinute, localTime } from '../../domain/quiet-hours.js';
import { backoffDelay, type RetryPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../lib/logger.js';
import { renderQuietDigestEmail, type QuietDigestItem } from '../email/quiet-digest-email.js';
import { describeError, isPermanentSmtpError, type Mailer, type MailMessage } from '../mailer.js';

export interface QuietDigestSenderDeps {
  digests: QuietDigestOutbox;
  mailer: Mailer;
  logger: Logger;
  now: () => number;
  publicUrl: string;
  messageHost: string;
  retry: RetryPolicy;
  random: () => number;
  onOutcome?: (outcome: 'sent' | 'retry' | 'failed') => void;
}

interface Claimed {
  owner: QuietDigestOwner;
  items: QuietDigestItem[];
  leftOut: { resolved: number; deleted: number };
}

/**
 * Sends a quiet-hours digest once its window has ended, with the e-mail outbox's protocol: claimed
 * `sending` in a transaction before the SMTP conversation, `sent` after it, retried with backoff,
 * never resent after a crash. What it lists is decided at send time: alerts resolved or deleted
 * meanwhile are counted, not listed; alerts of channels the person no longer sees (or has since
 * turned to `none`) are dropped; nothing left, or no verified address, sends nothing.
 */
export class QuietDigestSender {
  constructor(private readonly deps: QuietDigestSenderDeps) {}

  async send(id: number): Promise<void> {
    const now = this.deps.now();
    const claim = await this.deps.digests.claim<Claimed>(id, now, ({ owner, held }) => {
      if (!owner) return { skip: 'user deleted' };
      if (!owner.emailVerified) return { skip: 'no verified e-mail address: quiet-hours digests need one' };
      const { items, leftOut } = this.sort(held, owner);
      if (items.length === 0) return { skip: 'nothing left to send (held alerts resolved, deleted or no longer visible)' };
      return { send: { owner, items, leftOut } };
    });
    if (!claim) return;
    const { owner, items, leftOut } = claim.value;
    const q = owner.quiet;
    const email = renderQuietDigestEmail({
      items,
      leftOut,
      windowText: q ? `${formatMinute(q.startMinute)}–${formatMinute(q.endMinute)} ${q.timeZone}` : null,
      recipientEmail: owner.email,
      feedUrl: `${this.deps.publicUrl}/feed`,
      settingsUrl: `${this.deps.publicUrl}/profile#quiet-hours`,
    });
    const message: MailMessage = {
      to: owner.name && !/[",<>]/.test(owner.name) ? `"${owner.name}" <${owner.email}>` : owner.email,
      subject: email.subject,
      text: email.text,
      html: email.html,
      messageId: `<quiet${id}.${claim.digest.userId}@${this.deps.messageHost}>`,
      headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
    };
    await this.deliver(id, message, claim.attempts);
  }

  /** One line per alert (its latest hold), oldest first; resolved and deleted ones counted instead. */
  private sort(held: HeldAlert[], owner: QuietDigestOwner): Omit<Claimed, 'owner'> {
    const latest = new Map<string, HeldAlert>();
    for (const h of held) {
      latest.delete(h.alertId);
      latest.set(h.alertId, h);
    }
    const zone = owner.quiet?.timeZone ?? 'UTC';
    const items: QuietDigestItem[] = [];
    const leftOut = { resolved: 0, deleted: 0 };
    for (const h of latest.values()) {
      if (!h.alert || !h.channel) leftOut.deleted++;
      else if (h.alert.status === 'resolved') leftOut.resolved++;
      else if (h.recipient && levelAllows(h.recipient.level, h.alert.level)) {
        items.push({
          level: h.alert.level,
          title: h.alert.title,
          channelSlug: h.channel.slug,
          workspaceName: h.channel.workspaceName,
          when: `${localTime(h.heldAt, zone)}${owner.quiet ? '' : ' UTC'}`,
          url: `${this.deps.publicUrl}/channels/${h.channelId}`,
        });
      }
    }
    return { items, leftOut };
  }

  private async deliver(id: number, message: MailMessage, attempts: number): Promise<void> {
    const { digests, logger } = this.deps;
    try {
      const info = await this.deps.mailer.send(message);
      this.deps.onOutcome?.('sent');
      try {
        await digests.recordSent(id, info.messageId, this.deps.now());
      } catch (err) {
        logger.error({ quietDigestId: id, err }, 'quiet-hours digest sent, but recording it failed; it stays "sending" and is never resent');
      }
    } catch (err) {
      const now = this.deps.now();
      const reason = describeError(err);
      const permanent = isPermanentSmtpError(err);
      if (permanent || attempts >= this.deps.retry.maxAttempts) {
        this.deps.onOutcome?.('failed');
        await digests.recordFailed(id, permanent ? `permanent failure: ${reason}` : `gave up after ${attempts} attempts: ${reason}`, now);
        logger.error({ quietDigestId: id, attempts, reason }, 'quiet-hours digest failed for good');
      } else {
        const at = now + backoffDelay(this.deps.retry, attempts, this.deps.random);
        this.deps.onOutcome?.('retry');
        await digests.recordRetry(id, at, reason, now);
        logger.warn({ quietDigestId: id, attempts, reason }, 'quiet-hours digest failed; will retry');
      }
    }
  }
}
