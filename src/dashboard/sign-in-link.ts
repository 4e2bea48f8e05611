import { randomBytes } from 'node:crypto';
import type { Mailer } from '../notify/mailer.js';

/**
 * The link's secret travels in the query string, never the path: request logs
 * print only paths, and the confirmation page's Referrer-Policy keeps it from
 * other sites.
 */
export function signInUrl(publicUrl: string, secret: string): string {
  return `${publicUrl}/auth/link?t=${secret}`;
}

/** An address confirmation (src/dashboard/routes/profile.tsx); the secret in the query string, as above. */
export function emailConfirmUrl(publicUrl: string, secret: string): string {
  return `${publicUrl}/profile/email/confirm?t=${secret}`;
}

export async function mailSignInLink(mailer: Mailer, to: string, url: string, expiresAt: number, why = 'sign in to Alertbridge'): Promise<void> {
  const until = new Date(expiresAt).toISOString().slice(11, 16);
  await mailer.send({
    to,
    subject: 'Your Alertbridge sign-in link',
    text: `Open this link to ${why}. It works once, until ${until} UTC.\n\n${url}\n\nIf you did not ask for it, ignore this message.`,
    html: `<p>Open this link to ${why}. It works once, until ${until} UTC.</p><p><a href="${url}">Sign in to Alertbridge</a></p><p>If you did not ask for it, ignore this message.</p>`,
    messageId: `<signin.${randomBytes(12).toString('hex')}@alertbridge>`,
  });
}
