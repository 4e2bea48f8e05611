import { ACCOUNT_MAIL_EVENT, type AccountMail, type AccountMailKind, type ClaimedAccountMail } from '../domain/auth/account-mail.js';
import type { Config } from '../config.js';
import type { RoutePausedNotice } from '../domain/routes/route-pause-notice.js';
import type { ChangeBus } from '../domain/changes.js';
import { backoffDelay } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { DueRowWorker, dueRowWorkerDefaults, type DueRowWorkerOptions, type Enqueue } from './due-row-worker.js';
import { describeError, isPermanentSmtpError, SmtpMailer, type Mailer, type MailMessage } from './mailer.js';

/** Account e-mails are few and small: two SMTP conversations at once. */
const SEND_CONCURRENCY = 2;
/** On PostgreSQL a row `sending` for longer than this belongs to a node that died mid-send. */
const SEND_LEASE_MS = 10 * 60_000;

const INTERRUPTED = 'interrupted mid-send (the process stopped between claiming and recording the send); not resent: ask for a new link';
const EXPIRED = 'the link expired before the e-mail could be sent';
const UNREADABLE = 'the sealed link could not be opened (the app secret changed?)';

export interface AccountMailerOptions extends DueRowWorkerOptions {
  mailer: Mailer;
}

export interface AccountMailerDeps {
  accountMail: AccountMail;
  bus: ChangeBus;
  clock: Clock;
  logger: Logger;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A route paused after an hour of failures (src/domain/routes/route-pause-notice.ts): what, why, and where to resume it. */
function composePauseNotice(sealed: string): Pick<MailMessage, 'subject' | 'text' | 'html'> {
  const n = JSON.parse(sealed) as RoutePausedNotice;
  const what = `The route ${n.route} of channel ${n.channel}`;
  const next = 'Its deliveries wait and nothing new is queued until someone resumes it. Fix the receiver (or the target), then resume the route:';
  return {
    subject: `Route paused: ${n.route} (${n.channel})`,
    text: `${what} failed for an hour and was paused.\n\nLast error: ${n.reason}\n\n${next}\n\n${n.link}`,
    html: `<p>${escape(what)} failed for an hour and was paused.</p><p>Last error: ${escape(n.reason)}</p><p>${escape(next)}</p><p><a href="${escape(n.link)}">Open the route</a></p>`,
  };
}

/** What each kind of account e-mail says; `link` is the secret URL, `until` its expiry (UTC). */
function compose(kind: AccountMailKind, to: string, link: string, until: number): Pick<MailMessage, 'subject' | 'text' | 'html'> {
  if (kind === 'route-paused') return composePauseNotice(link);
  const at = new Date(until).toISOString().replace('T', ' ').slice(0, 16);
  const [subject, why, button] =
    kind === 'sign-in'
      ? ['Your Alertbridge sign-in link', 'sign in to Alertbridge', 'Sign in to Alertbridge']
      : ['Confirm your Alertbridge e-mail address', `confirm ${to} as your Alertbridge address (sign in first if asked)`, 'Confirm this address'];
  return {
    subject,
    text: `Open this link to ${why}. It works once, until ${at} UTC.\n\n${link}\n\nIf you did not ask for it, ignore this message.`,
    html: `<p>Open this link to ${escape(why)}. It works once, until ${at} UTC.</p><p><a href="${escape(link)}">${button}</a></p><p>If you did not ask for it, ignore this message.</p>`,
  };
}

/**
 * Sends the account e-mail outbox (account_emails): sign-in links and address confirmations, written
 * by the dashboard's requests, which answer without waiting for SMTP. Retries like the notification
 * outbox (a 5xx is final, anything else is retried with backoff), gives a row up once its link has
 * expired, and blanks the sealed link once a row is sent or given up. A row a crash left `sending` is
 * recorded as failed, not resent (the person asks again), as the notification outbox does.
 */
export class AccountMailer extends DueRowWorker<AccountMailerOptions> {
  constructor(
    private readonly deps: AccountMailerDeps,
    options: Partial<AccountMailerOptions> & { mailer: Mailer },
  ) {
    super({
      name: 'account-mailer',
      options: { ...dueRowWorkerDefaults(deps.clock), concurrency: SEND_CONCURRENCY, ...options },
      bus: deps.bus,
      wakeEvents: [ACCOUNT_MAIL_EVENT],
      logger: deps.logger,
      taskNoun: 'account e-mail',
      sentNoun: 'account e-mails',
    });
  }

  private get rows() {
    return this.deps.accountMail.rows;
  }

  protected override stopped(): void {
    this.options.mailer.close();
  }

  protected nextDue(): Promise<number | null> {
    return this.rows.nextDue();
  }

  protected anythingDue(now: number): Promise<boolean> {
    return this.rows.anythingDue(now);
  }

  protected recoverInterrupted(now: number): Promise<number> {
    // At start on SQLite every `sending` row was this process's; across nodes only those past the lease.
    return this.rows.recoverInterrupted(this.options.recoverEachPrune ? now - SEND_LEASE_MS : now, now, INTERRUPTED);
  }

  protected async prune(before: number): Promise<void> {
    await this.rows.prune(before);
  }

  protected async enqueueDue(now: number, room: number, enqueue: Enqueue): Promise<void> {
    if (room <= 0) return;
    let added = 0;
    for (const id of await this.rows.dueIds(now, room + this.passes.inFlightCount)) {
      if (added >= room) break;
      if (enqueue(`a:${id}`, () => this.send(id))) added++;
    }
  }

  private async send(id: string): Promise<void> {
    const now = this.now();
    const row = await this.rows.claim(id, now);
    if (!row) return;
    if (row.linkExpiresAt <= now) return await this.rows.failed(id, now, EXPIRED);
    const link = this.deps.accountMail.open(row);
    if (!link) return await this.rows.failed(id, now, UNREADABLE);
    try {
      await this.options.mailer.send({ to: row.toAddress, ...compose(row.kind, row.toAddress, link, row.linkExpiresAt), messageId: `<account.${id}@alertbridge>` });
      await this.rows.sent(id, this.now());
    } catch (err) {
      await this.failedAttempt(row, err);
    }
  }

  /** Never logs the link or the address: only the row id, the kind and the SMTP reason. */
  private async failedAttempt(row: ClaimedAccountMail, err: unknown): Promise<void> {
    const reason = describeError(err);
    const now = this.now();
    const { retry, random } = this.options;
    const next = now + backoffDelay(retry, row.attempts, random);
    if (isPermanentSmtpError(err) || row.attempts >= retry.maxAttempts || next >= row.linkExpiresAt) {
      this.logger.warn({ id: row.id, kind: row.kind, attempts: row.attempts, reason }, 'account e-mail failed');
      await this.rows.failed(row.id, now, reason);
    } else {
      this.logger.info({ id: row.id, kind: row.kind, attempts: row.attempts, reason }, 'account e-mail will be retried');
      await this.rows.retry(row.id, next, reason);
    }
  }
}

/**
 * The worker as the runtime starts it: only with SMTP_URL (without it the dashboard queues nothing).
 * `recoverEachPrune` on PostgreSQL, where a node that died mid-send is not the one that restarts.
 */
export function startAccountMailer(
  s: AccountMailerDeps & { config: Pick<Config, 'smtpUrl' | 'mailFrom'> },
  options: Partial<AccountMailerOptions> & { mailer?: Mailer | null } = {},
): AccountMailer | null {
  const mailer = options.mailer !== undefined ? options.mailer : s.config.smtpUrl ? new SmtpMailer(s.config.smtpUrl, s.config.mailFrom) : null;
  if (!mailer) return null;
  return new AccountMailer(s, { ...options, mailer }).start();
}
