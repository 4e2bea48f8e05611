import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/auth/passwords.js';
import type { DashboardDeps } from '../deps.js';
import { clientAddress } from '../http/client-address.js';
import type { DashEnv } from '../http/env.js';
import { formOf, originGuard, requireSession } from '../http/session.js';
import { acceptInvitationPage, invitationForAnotherAccountPage, invitationGonePage } from '../pages/invitations.js';
import { startSession } from './auth.js';
import { redirectWithFlash, redirectWithFlashFor } from '../http/flash.js';

const nameSchema = z.string().trim().min(1, 'Enter your name').max(100, 'At most 100 characters');
/** An existing account accepts only after signing in as itself; its pending invitations wait on its profile. */
const SIGN_IN_TO_ACCEPT = '/sign-in?invitation=1&next=%2Fprofile';

function passwordError(password: string, repeat: string): string | undefined {
  if (password === '' && repeat === '') return undefined;
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) return `Use ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, or leave both empty`;
  return password === repeat ? undefined : 'The two passwords differ';
}

/**
 * The invitation link (/invite?t=…) and what an invitee does with it. The link never signs anyone
 * in to an account that exists: for an address with an account it leads to the sign-in page, and
 * that user accepts on their profile once signed in as themselves (/invitations/:id/accept).
 */
export function invitationRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const mailEnabled = deps.mailer !== null;

  // GET changes nothing: mail scanners open links.
  r.get('/invite', async (c) => {
    const secret = c.req.query('t') ?? '';
    const found = await deps.invitations.open(secret);
    if (!found) return invitationGonePage(c);
    if (!found.account) return acceptInvitationPage(c, { secret, invitation: found.invitation, mailEnabled });
    const cookie = getCookie(c, deps.cookieName);
    const session = cookie ? await deps.sessions.resolve(cookie) : undefined;
    if (session?.userId === found.account.id) return c.redirect('/profile#invitations', 303);
    if (session) return invitationForAnotherAccountPage(c);
    return c.redirect(SIGN_IN_TO_ACCEPT, 303);
  });

  r.post('/invite/accept', originGuard(deps), async (c) => {
    const form = await formOf(c);
    const secret = form.t ?? '';
    const found = await deps.invitations.open(secret);
    if (!found) return invitationGonePage(c);
    if (found.account) return c.redirect(SIGN_IN_TO_ACCEPT, 303);
    const name = nameSchema.safeParse(form.name ?? '');
    const password = form.password ?? '';
    const pwError = passwordError(password, form.repeat_password ?? '');
    if (!name.success || pwError) {
      const errors = { name: name.success ? undefined : name.error.issues[0]!.message, password: pwError };
      return acceptInvitationPage(c, { secret, invitation: found.invitation, mailEnabled, values: { name: form.name ?? '' }, errors }, 400);
    }
    // The invitation, the account and the membership in one transaction; an account made meanwhile wins.
    const result = await deps.invitations.acceptAsNewUser(secret, name.data);
    if (result.status !== 'accepted') return result.status === 'taken' ? c.redirect(SIGN_IN_TO_ACCEPT, 303) : invitationGonePage(c);
    const { invitation: inv, userId } = result;
    if (password) await deps.passwords.set(userId, password);
    await deps.audit.record(inv.workspaceId, userId, 'member.invitation-accepted', `${inv.email} as ${inv.role} (new account)`, clientAddress(c, deps.services.config.trustProxy));
    const session = await startSession(c, deps, userId, 'invitation');
    // The first sign-in lands on the feed, welcomed; name, password and notifications wait on the profile.
    const ws = (await deps.accounts.workspacesOf(userId)).find((w) => w.id === inv.workspaceId);
    return redirectWithFlashFor(c, deps, session, '/feed', {
      notice: `Welcome to ${ws?.name ?? 'Alertbridge'}! You joined as ${inv.role}. Your password and e-mail settings are on your profile.`,
    });
  });

  for (const p of ['/invitations', '/invitations/*']) r.use(p, requireSession(deps));

  r.post('/invitations/:id/accept', async (c) => {
    const viewer = c.get('viewer');
    const inv = await deps.invitations.acceptFor(viewer, c.req.param('id'));
    if (!inv) return c.notFound();
    await deps.audit.record(inv.workspaceId, viewer.id, 'member.invitation-accepted', `${inv.email} as ${inv.role}`, c.get('clientAddress'));
    await deps.sessions.switchWorkspace(c.get('session'), inv.workspaceId);
    const ws = (await deps.accounts.workspacesOf(viewer.id)).find((w) => w.id === inv.workspaceId);
    return redirectWithFlash(c, '/feed', { notice: `Invitation accepted: you are now ${inv.role === 'admin' ? 'an' : 'a'} ${inv.role} of ${ws?.name ?? 'the workspace'}.` });
  });

  r.post('/invitations/:id/decline', async (c) => {
    const viewer = c.get('viewer');
    const inv = await deps.invitations.declineFor(viewer, c.req.param('id'));
    if (!inv) return c.notFound();
    await deps.audit.record(inv.workspaceId, viewer.id, 'member.invitation-declined', `${inv.email} as ${inv.role}`, c.get('clientAddress'));
    return redirectWithFlash(c, '/profile', { notice: 'Invitation declined.' });
  });

  return r;
}
