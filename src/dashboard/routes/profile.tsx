import { Hono } from 'hono';
import { z } from 'zod';
import { BOOTSTRAP_PLACEHOLDER_EMAIL } from '../../bootstrap.js';
import { AppError } from '../../domain/errors.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/auth/passwords.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { requireRecentSignIn } from '../http/guards.js';
import { formOf, requireSession } from '../http/session.js';
import { profilePage } from '../pages/profile.js';
import { mailSignInLink, signInUrl } from '../sign-in-link.js';

export function profileRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  r.use('/profile', requireSession(deps));
  r.use('/profile/*', requireSession(deps));
  const view = async (c: Parameters<typeof profilePage>[0]) => ({
    hasPassword: await deps.passwords.hasPassword(c.get('viewer').id),
    invitations: await deps.invitations.pendingFor(c.get('viewer')),
    levels: (await deps.services.notifyPrefs.list(c.get('viewer').id)).filter((l) => l.workspace.id === c.get('workspace')?.id),
    push: { publicKey: deps.services.push.vapid.publicKey, devices: await deps.services.push.subscriptions.list(c.get('viewer').id) },
  });

  r.get('/profile', async (c) => profilePage(c, await view(c)));

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
    return c.redirect('/profile?password=1', 303);
  });

  r.post('/profile/name', async (c) => {
    const form = await formOf(c);
    const parsed = z.string().trim().min(1, 'Enter your name').max(100, 'At most 100 characters').safeParse(form.name ?? '');
    if (!parsed.success) return profilePage(c, { ...(await view(c)), nameError: parsed.error.issues[0]!.message }, 400);
    await deps.accounts.renameUser(c.get('viewer').id, parsed.data);
    return c.redirect('/profile?name=1', 303);
  });

  r.post('/profile/email', async (c) => {
    const form = await formOf(c);
    const viewer = c.get('viewer');
    const parsed = z.string().trim().email('Enter an e-mail address').safeParse(form.email ?? '');
    const fail = async (emailError: string) => profilePage(c, { ...(await view(c)), emailError, emailValue: form.email }, 400);
    if (!parsed.success) return fail(parsed.error.issues[0]!.message);
    const email = parsed.data;
    if (email.toLowerCase() === viewer.email.toLowerCase()) return fail('That is already your address');
    const taken = await deps.accounts.findUser(email);
    if (taken) return fail('Another account uses this address');
    // The placeholder receives no mail, and without SMTP nothing is ever mailed: there is no mailbox to prove.
    if (viewer.email === BOOTSTRAP_PLACEHOLDER_EMAIL || !deps.mailer) {
      if (!await deps.accounts.changeEmail(viewer.id, email)) return fail('Another account uses this address');
      return c.redirect('/profile?email=1', 303);
    }
    const { secret, expiresAt } = await deps.links.issue(viewer.id, { newEmail: email });
    await mailSignInLink(deps.mailer, email, signInUrl(deps.services.config.publicUrl, secret), expiresAt, `confirm ${email} as your Alertbridge address`);
    return profilePage(c, { ...(await view(c)), emailSentTo: email });
  });

  return r;
}
