import type { AlertLevel, NotificationKind, Outbox } from '../../domain/alert-store.js';
import { LEVEL_OF_RUN_STATE } from '../../domain/webhook/ingest.js';
import { backoffDelay, type RetryPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../lib/logger.js';
import { describeError } from '../mailer.js';
import { levelAllows, type UnitRecipientRule } from '../../domain/notification-preferences.js';
import { isSilenced } from '../../domain/silences.js';
import { quietHoursAllow, quietHoursOf } from '../../domain/quiet-hours.js';
import type { QuietHold } from '../../domain/outbox-store.js';
import { escalationAudience } from '../../domain/escalation/escalation-notice.js';

/** Jobs fanned out per pass; a full batch asks for another pass at once. */
export const FAN_OUT_BATCH = 200;

export interface FanOutDeps {
  outbox: Pick<Outbox, 'dueJobs' | 'fanOut' | 'retryJob'>;
  /** Read inside the fan-out's store unit, synchronously (UnitRecipientRule). */
  prefs: Pick<UnitRecipientRule, 'recipientsInUnit'>;
  logger: Logger;
  retry: RetryPolicy;
  random: () => number;
}

/** A started job is about the run's start, whatever the row says by now (INFO); otherwise the row's level. */
export function effectiveLevel(kind: NotificationKind, level: AlertLevel): AlertLevel {
  return kind === 'workflow.started' ? LEVEL_OF_RUN_STATE.running : level;
}

/**
 * Turns due outbox jobs into one delivery row per eligible recipient. The job
 * is done once fanned out (one transaction with its delivery rows); each
 * delivery then carries its own state. With e-mail off, jobs are closed with
 * a note and no deliveries.
 */
export class FanOut {
  constructor(private readonly deps: FanOutDeps) {}

  /** Returns whether a full batch was taken (more may be due). */
  async due(now: number, emailOn: boolean): Promise<boolean> {
    const ids = await this.deps.outbox.dueJobs(now, FAN_OUT_BATCH);
    for (const id of ids) {
      try {
        await this.deps.outbox.fanOut(id, now, (job, alert, silences) => {
          if (!alert) return { deliverTo: [], note: 'alert deleted before delivery' };
          // The one place notifications are decided: a silenced alert is told to nobody, on any path.
          // Checked at the moment the alert arrived: a backlog sent after a maintenance window stays silent.
          const silence = isSilenced(silences, alert, job.createdAt);
          if (silence) return { deliverTo: [], pushTo: [], note: `silenced by ${silence.id}`, silencedBy: { id: silence.id, comment: silence.comment } };
          const level = effectiveLevel(job.kind, alert.level);
          // An escalation's final step goes to the people named for it (src/domain/escalation/escalation-notice.ts).
          const audience = escalationAudience(job);
          const recipients: string[] = [];
          const hold: QuietHold[] = [];
          for (const r of this.deps.prefs.recipientsInUnit(job.channelId)) {
            if (audience ? !audience.includes(r.userId) : !levelAllows(r.level, level)) continue;
            // Quiet hours at the moment the alert arrived: held for the window's digest e-mail, no push.
            const quiet = quietHoursAllow(quietHoursOf(r), level, job.createdAt);
            if (quiet.allow) recipients.push(r.userId);
            // An escalation step only repeats an alert already told (or already held): dropped, not held twice.
            else if (!job.escalationStep) hold.push({ userId: r.userId, until: quiet.until });
          }
          // One decision for both paths: Web Push reaches the same recipients as e-mail, e-mail on or off.
          if (!emailOn) return { deliverTo: [], pushTo: recipients, note: 'e-mail off (no SMTP_URL): nothing sent', silencedBy: null };
          return { deliverTo: recipients, pushTo: recipients, hold, note: null, silencedBy: null };
        });
      } catch (err) {
        await this.fail(id, err, now);
      }
    }
    return ids.length === FAN_OUT_BATCH;
  }

  private async fail(id: number, err: unknown, now: number): Promise<void> {
    const { retry, random } = this.deps;
    const reason = describeError(err);
    const r = await this.deps.outbox.retryJob(id, (attempts) => ({
      giveUp: attempts >= retry.maxAttempts,
      at: now + backoffDelay(retry, attempts, random),
      reason,
    }));
    if (!r) return;
    this.deps.logger[r.giveUp ? 'error' : 'warn'](
      { jobId: id, attempts: r.attempts, err },
      r.giveUp ? 'notification job failed for good' : 'notification job failed; will retry',
    );
  }
}
