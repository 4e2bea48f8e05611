import { type RetryPolicy, backoffDelay } from '../../lib/backoff.js';
import { escalationAudience, escalationLabel, escalationStale } from '../../domain/escalation/escalation-notice.js';
import type { Logger } from '../../lib/logger.js';
import { effectiveLevel } from '../outbox/fan-out.js';
import { levelAllows, type UnitRecipientRule } from '../../domain/notification-preferences.js';
import { alertPayload, floodPayload, type PushPayload } from './payload.js';
import type { PushEndpoint, PushFloodStep, PushOutbox, PushTarget, PushWindow } from '../../domain/push-outbox.js';
import type { PushTransport } from './transport.js';

export interface PushSenderDeps {
  outbox: PushOutbox;
  /** Read inside the claim's store unit, synchronously (UnitRecipientRule). */
  prefs: Pick<UnitRecipientRule, 'recipientInUnit'>;
  transport: PushTransport;
  logger: Logger;
  now: () => number;
  publicUrl: string;
  retry: RetryPolicy;
  random: () => number;
  /** Signs the notification's action buttons for its recipient (src/domain/alert-action-links.ts). */
  actionToken: (userId: string, alertId: string) => string;
  /** The e-mail flood guard's numbers (src/notify/outbox/flood-guard.ts). */
  flood: { limit: number; windowMs: number };
  onOutcome?: (outcome: 'sent' | 'retry' | 'failed' | 'gone') => void;
}

interface PushClaim {
  to: PushEndpoint;
  payload: PushPayload;
  urgency: 'normal' | 'high';
}

/**
 * The push flood guard: the e-mail's fixed windows per (user, channel). The
 * first `limit` pushes in a window notify; the rest update one quiet summary
 * notification per channel (same tag, no sound) instead of buzzing each.
 */
export function pushFloodStep(window: PushWindow | undefined, now: number, limit: number, windowMs: number): PushFloodStep {
  if (!window || now >= window.windowEnd) return { kind: 'open', windowStart: now, windowEnd: now + windowMs };
  return window.sent < limit ? { kind: 'count' } : { kind: 'fold' };
}

/**
 * Sends one push delivery. The rules are the e-mail's, re-checked inside the
 * claim's transaction (alert still there, the user still sees the channel,
 * their level lets it through), then the row is `sending` before the request:
 * a crash mid-request leaves it `sending`, recorded as failed at the next
 * start and never sent twice.
 */
export class PushSender {
  constructor(private readonly deps: PushSenderDeps) {}

  async send(target: PushTarget): Promise<void> {
    const now = this.deps.now();
    const { limit, windowMs } = this.deps.flood;
    const claim = await this.deps.outbox.claim<PushClaim>(target, now, ({ delivery, alert, channel, subscription, window }) => {
      if (!subscription) return { skip: 'subscription removed' };
      if (!alert) return { skip: 'alert deleted before delivery' };
      const recipient = this.deps.prefs.recipientInUnit(delivery.channelId, delivery.userId);
      if (!recipient) return { skip: 'recipient can no longer see the channel' };
      const level = effectiveLevel(delivery.kind, alert.level);
      const named = escalationAudience(delivery) !== null;
      if (!named && !levelAllows(recipient.level, level)) return { skip: `preference is now "${recipient.level}"` };
      if (!channel) return { skip: 'channel deleted' };
      const stale = delivery.kind === 'alert.escalated' ? escalationStale(alert, now) : null;
      if (stale) return { skip: stale };
      // Escalation steps are never folded into a flood summary (as for e-mail).
      const flood = delivery.attempts === 0 && delivery.kind !== 'alert.escalated' ? pushFloodStep(window, now, limit, windowMs) : null;
      const folded = flood?.kind === 'fold';
      const payload = folded
        ? floodPayload(alert, channel, (window?.folded ?? 0) + 1, this.deps.publicUrl)
        : alertPayload(alert, delivery.kind, channel, this.deps.publicUrl, escalationLabel(delivery));
      if (!folded && alert.kind === 'standard' && alert.status !== 'resolved' && delivery.kind !== 'alert.resolved') {
        payload.actionToken = this.deps.actionToken(delivery.userId, alert.id);
      }
      return { send: { to: subscription, payload, urgency: level === 'ERROR' && alert.kind !== 'chat' ? 'high' : 'normal' }, flood };
    });
    if (!claim) return;
    const { to, payload, urgency } = claim.value;
    // A flood summary replaces the one still queued at the push service (Topic), not only on the screen (tag).
    const topic = payload.tag.startsWith('flood-') ? payload.tag.slice('flood-'.length).replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32) : undefined;
    const outcome = await this.deps.transport.send(to, JSON.stringify(payload), { urgency, topic });
    const at = this.deps.now();
    const log = { jobId: target.jobId, subscriptionId: target.subscriptionId, attempts: claim.attempts };
    if (outcome.ok) {
      this.deps.onOutcome?.('sent');
      await this.deps.outbox.recordSent(target, at);
      return;
    }
    if (outcome.gone) {
      this.deps.onOutcome?.('gone');
      await this.deps.outbox.removeSubscription(target.subscriptionId);
      this.deps.logger.info({ ...log, reason: outcome.reason }, 'push subscription expired or unsubscribed; removed');
      return;
    }
    if (outcome.retry && claim.attempts < this.deps.retry.maxAttempts) {
      const next = at + backoffDelay(this.deps.retry, claim.attempts, this.deps.random);
      this.deps.onOutcome?.('retry');
      await this.deps.outbox.recordRetry(target, next, outcome.reason, at);
      this.deps.logger.warn({ ...log, reason: outcome.reason, retryInMs: next - at }, 'push failed; will retry');
      return;
    }
    const why = outcome.retry ? `gave up after ${claim.attempts} attempts: ${outcome.reason}` : `permanent failure: ${outcome.reason}`;
    this.deps.onOutcome?.('failed');
    await this.deps.outbox.recordFailed(target, why, at);
    this.deps.logger.error({ ...log, reason: why }, 'push failed for good');
  }
}
