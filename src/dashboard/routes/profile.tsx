import { Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { EMAIL_BANNER_COOKIE } from '../views/feed-extras.js';
import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/auth/passwords.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { requireRecentSignIn } from '../http/guards.js';
import { linkTokenFor, OIDC_LINK_PURPOSE } from '../http/csrf.js';
import { formOf, requireSession } from '../http/session.js';
import { profilePage } from '../pages/profile.js';
import { quietHoursRoutes } from './quiet-hours.js';
import { errorPage } from '../pages/errors.js';
import { emailConfirmPage } from '../pages/email-confirm.js';
import { emailConfirmUrl } from '../sign-in-link.js';
import { redirectWithFlash } from '../http/flash.js';
import { EMAIL_CONFIRMATION_TTL_MS } from '../../domain/auth/sign-in-links.js';

export function profileRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  r.use('/profile', requireSession(deps));
  r.use('/profile/*', requireSession(deps));
  const view = async (c: Parameters<typeof profilePage>[0]) => ({
    hasPassword: await deps.passwords.hasPassword(c.get('viewer').id),
    invitations: await deps.invitations.pendingFor(c.get('viewer')),
    levels: (await deps.services.notifyPrefs.list(c.get('viewer').id)).filter((l) => l.workspace.id === c.get('workspace')?.id),
    push: { publicKey: deps.services.push.vapid.publicKey, devices: await deps.services.push.subscriptions.list(c.get('viewer').id) },
    mailEnabled: deps.mailer !== null,
    quiet: { current: await deps.services.quietHours.get(c.get('viewer').id) },
    sso: deps.relyingParty
      ? {
          label: deps.relyingParty.settings.buttonLabel,
          linked: (await deps.services.sso.signOn.rows.identitiesOf(c.get('viewer').id)).length > 0,
          linkUrl: `/profile/oidc/link?token=${linkTokenFor(c.get('sessionSecret'), OIDC_LINK_PURPOSE)}`,
        }
      : undefined,
  });

  r.get('/profile', async (c) => profilePage(c, await view(c)));
  quietHoursRoutes(r, deps, async (c, quiet, status) => profilePage(c, { ...(await view(c)), quiet }, status));

  r.post('/profile/password', async (c) => {
    const form = await formOf(c);
    const password = form.new_password ?? '';
    const error =
      password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH
        ? `Use ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`
        : password !== form.repeat_password
          ? 'The two passwords differ'
          : undefined;
    if (error) return profilePage(c, { ...(await view(c)), passwordError: error }, 400);
    // Changing a password is as sensitive as the actions it protects.
    await requireRecentSignIn(c, deps, form);
    try {
      await deps.passwords.set(c.get('viewer').id, password);
    } catch (err) {
      if (err instanceof AppError) return profilePage(c, { ...(await view(c)), passwordError: err.detail }, 400);
      throw err;
    }
    return redirectWithFlash(c, '/profile', { notice: 'Password saved.' });
  });

  // Per browser, like a closed hint: the address can still be set from the profile at any time.
  r.post('/profile/email-banner/dismiss', (c) => {
    setCookie(c, EMAIL_BANNER_COOKIE, 'dismissed', { path: '/', httpOnly: true, sameSite: 'Lax', secure: deps.secureCookies, maxAge: 365 * 86_400 });
    return c.redirect('/feed', 303);
  });

  r.post('/profile/name', async (c) => {
    const form = await formOf(c);
    const parsed = z.string().trim().min(1, 'Enter your name').max(100, 'At most 100 characters').safeParse(form.name ?? '');
    if (!parsed.success) return profilePage(c, { ...(await view(c)), nameError: parsed.error.issues[0]!.message }, 400);
    await deps.accounts.renameUser(c.get('viewer').id, parsed.data);
    return redirectWithFlash(c, '/profile', { notice: 'Name saved.' });
  });

  /**
   * The same answer whether another account uses the address or not (no probing for accounts). With
   * mail, a confirmation link goes to the new address through the account e-mail outbox and the
   * address changes, verified, only when it is used. Without mail there is no mailbox to prove: the
   * address changes at once but stays unverified (it matches no sign-in link or invitation, and
   * reserves nothing), and the password keeps working.
   */
  r.post('/profile/email', async (c) => {
    const form = await formOf(c);
    const viewer = c.get('viewer');
    const parsed = z.string().trim().email('Enter an e-mail address').safeParse(form.email ?? '');
    const fail = async (emailError: string) => profilePage(c, { ...(await view(c)), emailError, emailValue: form.email }, 400);
    if (!parsed.success) return fail(parsed.error.issues[0]!.message);
    const email = parsed.data;
    const same = email.toLowerCase() === viewer.email.toLowerCase();
    if (same && (viewer.emailVerified || !deps.mailer)) return fail('That is already your address');
    if (!deps.mailer) {
      await deps.accounts.changeEmail(viewer.id, email, { verified: false });
      return redirectWithFlash(c, '/profile', {
        notice: 'E-mail address changed. It is not verified (this server sends no e-mail): sign-in links and invitations do not reach it until an operator sets it.',
        tone: 'warn',
      });
    }
    const { secret, expiresAt } = await deps.links.issueEmailConfirmation(viewer.id, email);
    await deps.services.accountMail.enqueue({ to: email, kind: 'confirm-email', link: emailConfirmUrl(deps.services.config.publicUrl, secret), linkExpiresAt: expiresAt });
    // Post/Redirect/Get: a reload shows the page again, it never sends a second link.
    return redirectWithFlash(c, '/profile', {
      notice: `We sent a confirmation link to ${email}. Your address changes when you open it while signed in here (within ${EMAIL_CONFIRMATION_TTL_MS / 3_600_000} hours).`,
    });
  });

  // GET changes nothing (mail scanners open links): the page's button POSTs.
  r.get('/profile/email/confirm', async (c) => {
    const secret = c.req.query('t') ?? '';
    const link = secret ? await deps.links.peekEmailConfirmation(secret) : undefined;
    // Another account's link reads as an expired one: it is not this viewer's to use or to learn about.
    return emailConfirmPage(c, secret, link?.userId === c.get('viewer').id ? (link.newEmail ?? undefined) : undefined);
  });

  r.post('/profile/email/confirm', async (c) => {
    const viewer = c.get('viewer');
    const secret = (await formOf(c)).t ?? '';
    const email = secret ? await deps.links.consumeEmailConfirmation(secret, viewer.id) : undefined;
    if (!email) return emailConfirmPage(c, '', undefined);
    if (!(await deps.accounts.changeEmail(viewer.id, email, { verified: true }))) {
      // Proven by its owner, so telling them is no leak: another account proved it first.
      return errorPage(c, 409, 'Address taken', `Another account uses ${email} now. Your e-mail address was not changed.`);
    }
    return redirectWithFlash(c, '/profile', { notice: `E-mail address confirmed: ${email}.` });
  });

  return r;
}
