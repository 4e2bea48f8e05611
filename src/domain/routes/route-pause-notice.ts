import type { Accounts } from '../accounts.js';
import type { AccountMail } from '../auth/account-mail.js';
import type { Clock } from '../../lib/clock.js';
import type { RouteRow } from './route-rows.js';

/** A notice about a paused route is worth sending for a week; after that the dashboard says it. */
const NOTICE_VALID_MS = 7 * 24 * 3_600_000;

/** What a pause notice e-mail says, sealed in the outbox row as the link is for the other kinds. */
export interface RoutePausedNotice {
  /** The route's page in channel settings, where Resume is. */
  link: string;
  route: string;
  channel: string;
  reason: string;
}

/**
 * "Your Slack route stopped": when the route worker pauses a route after an hour of failures, each
 * owner and admin of its workspace with a proven address gets one e-mail through the account e-mail
 * outbox (durable, retried, sent by whichever node runs it). Once per pause: the worker calls this
 * only when its pause took effect, and a pause is taken once across nodes.
 */
export class RoutePauseNotices {
  constructor(
    private readonly deps: {
      accounts: Pick<Accounts, 'requireChannel' | 'listMembers' | 'findUser'>;
      mail: Pick<AccountMail, 'enqueue'>;
      clock: Clock;
      publicUrl: string;
      /** SMTP_URL is set: without it nothing would send the rows, so none is written. */
      mailEnabled: boolean;
    },
  ) {}

  async notify(route: Pick<RouteRow, 'id' | 'channelId' | 'kind' | 'targetHint'>, reason: string): Promise<number> {
    if (!this.deps.mailEnabled) return 0;
    const channel = await this.deps.accounts.requireChannel(route.channelId);
    const managers = (await this.deps.accounts.listMembers(channel.workspaceId)).filter((m) => m.role === 'owner' || m.role === 'admin');
    // The worker's reason starts by saying it paused; the mail says that itself, then the last error.
    const lastError = reason.replace(/^paused after failing for an hour: /, '');
    const notice: Omit<RoutePausedNotice, 'link'> = { route: `${route.kind} → ${route.targetHint}`, channel: channel.name, reason: lastError };
    const link = `${this.deps.publicUrl.replace(/\/+$/, '')}/channels/${channel.id}/routes/${route.id}`;
    let sent = 0;
    for (const m of managers) {
      // Only a proven address: a notice naming a route's target must not go to an address nobody confirmed.
      if (!(await this.deps.accounts.findUser(m.id))?.emailVerified) continue;
      await this.deps.mail.enqueue({ to: m.email, kind: 'route-paused', link: JSON.stringify({ link, ...notice }), linkExpiresAt: this.deps.clock.now() + NOTICE_VALID_MS });
      sent++;
    }
    return sent;
  }
}
