import { randomBytes } from 'node:crypto';
import type { InvitationRecord } from '../domain/auth/invitations.js';
import type { DashboardDeps } from './deps.js';

/** Like sign-in links, the secret travels in the query string: request logs print only paths. */
export function invitationUrl(publicUrl: string, secret: string): string {
  return `${publicUrl}/invite?t=${secret}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Sends the invitation when mail is on. The wording follows whether an account has the address now
 * (create an account, or sign in and accept); what the link does is decided when it is opened.
 * Returns whether it went out: when it did not (mail off, or the send failed), the inviter is shown
 * the link instead, which is safe because it never signs anyone in to an existing account.
 */
export async function mailInvitation(deps: DashboardDeps, inv: InvitationRecord, secret: string, inviterName: string): Promise<boolean> {
  if (!deps.mailer) return false;
  const url = invitationUrl(deps.services.config.publicUrl, secret);
  const existing = (await deps.accounts.findUserByVerifiedEmail(inv.email)) !== undefined;
  const until = `${new Date(inv.expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const invited = `${inviterName} invited you to join ${inv.workspaceName} on Alertbridge as ${inv.role}.`;
  const what = existing
    ? `You already have an account at ${inv.email}: sign in as that account and accept the invitation (it waits under Pending invitations on your profile). This link takes you to the sign-in page; it works until ${until}.`
    : `Open this link to accept and create your account. It works once, until ${until}.`;
  try {
    await deps.mailer.send({
      to: inv.email,
      subject: `Join ${inv.workspaceName} on Alertbridge`,
      text: `${invited}\n\n${what}\n\n${url}\n\nIf you do not know ${inviterName}, ignore this message.`,
      html: `<p>${escapeHtml(invited)}</p><p>${escapeHtml(what)}</p><p><a href="${url}">${existing ? 'Sign in and accept' : 'Accept and create your account'}</a></p><p>If you do not know ${escapeHtml(inviterName)}, ignore this message.</p>`,
      messageId: `<invite.${randomBytes(12).toString('hex')}@alertbridge>`,
    });
  } catch (err) {
    // Never the link: the inviter is shown it instead.
    deps.services.logger.warn({ invitationId: inv.id, err: (err as Error).message }, 'invitation e-mail failed');
    return false;
  }
  await deps.invitations.markSentByMail(inv.id, secret);
  return true;
}
