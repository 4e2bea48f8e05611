import { createHmac, timingSafeEqual } from 'node:crypto';
import { appSecret, UNSUBSCRIBE_SECRET_NAME, type AppSecretRows } from './app-secrets.js';
import type { Clock } from '../../lib/clock.js';

/**
 * One-click unsubscribe (RFC 8058) for notification e-mails. The link is
 * authorised by an HMAC over (user, channel) with a key kept in the database,
 * not by a session or an Origin check: the mail provider POSTs it from its own
 * servers. It only ever lowers one user's level for one channel to `none`, and
 * does not expire (old e-mails keep working).
 */
export class UnsubscribeLinks {
  private readonly key: Buffer;

  constructor(
    secrets: AppSecretRows,
    clock: Clock,
    private readonly publicUrl: string,
  ) {
    this.key = appSecret(secrets, clock, UNSUBSCRIBE_SECRET_NAME);
  }

  private sign(userId: string, channelId: string): string {
    return createHmac('sha256', this.key).update(`unsubscribe\n${userId}\n${channelId}`).digest('base64url');
  }

  url(userId: string, channelId: string): string {
    const q = new URLSearchParams({ u: userId, c: channelId, s: this.sign(userId, channelId) });
    return `${this.publicUrl}/unsubscribe?${q}`;
  }

  verify(userId: string, channelId: string, signature: string): boolean {
    const a = Buffer.from(signature);
    const b = Buffer.from(this.sign(userId, channelId));
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /**
   * What a notification e-mail carries: the two RFC 8058 headers, and the
   * dashboard links its body should show (the channel, and the recipient's
   * notification settings for it).
   */
  forEmail(userId: string, channelId: string) {
    const url = this.url(userId, channelId);
    return {
      headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      unsubscribeUrl: url,
      channelUrl: `${this.publicUrl}/channels/${channelId}`,
      settingsUrl: `${this.publicUrl}/channels/${channelId}#notify-title`,
    };
  }
}
