import type { Context } from 'hono';
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { enforceRateLimit } from '../../http/rate-limit.js';
import type { DashboardDeps } from '../deps.js';
import { clientAddress } from '../http/client-address.js';
import { localRedirect } from '../http/local-redirect.js';
import { redirectWithBrowserFlash, takeBrowserFlash } from '../http/public-flash.js';
import type { DashEnv } from '../http/env.js';
import { clearSessionCookie, formOf, originGuard, requireSession, setSessionCookie } from '../http/session.js';
import { linkPage, signInPage } from '../pages/sign-in.js';
import { signInUrl } from '../sign-in-link.js';

/** Where to go after signing in: a path on this site (src/dashboard/http/local-redirect.ts), else the start page. */
export function safeNext(raw: string | undefined, publicUrl: string): string {
  return localRedirect(raw, publicUrl) ?? '/';
}

/** A new session (new id at every sign-in) for a proven user; records a sign-in from a new device. */
/** Returns the new session's cookie secret (a flash for the first page is sealed with it). */
export async function startSession(c: Context, deps: DashboardDeps, userId: string, how: 'password' | 'link' | 'invitation' | 'oidc' | 'proxy'): Promise<string> {
  const from = clientAddress(c, deps.services.config.trustProxy);
  const workspaces = await deps.accounts.workspacesOf(userId);
  // A session the browser already had is ended: one browser, one session.
  const old = getCookie(c, deps.cookieName);
  const previous = old ? await deps.sessions.resolve(old) : undefined;
  if (previous) await deps.sessions.end(previous);
  const { secret, newDevice } = await deps.sessions.create(userId, workspaces[0]?.id ?? null, { clientAddress: from, userAgent: c.req.header('user-agent') });
  setSessionCookie(c, deps, secret);
  await deps.sessions.prune();
  await deps.links.prune();
  if (newDevice) for (const w of workspaces) await deps.audit.record(w.id, userId, 'sign-in.new-device', `by ${how}`, from);
  return secret;
}

const SIGN_IN_LIMITED = () => 'Too many sign-in attempts. Wait a minute and try again.';

async function limitSignIn(c: Context, deps: DashboardDeps, email: string): Promise<void> {
  const from = clientAddress(c, deps.services.config.trustProxy) ?? 'unknown';
  await enforceRateLimit(c, deps.signInPerAddress, `addr:${from}`, SIGN_IN_LIMITED);
  await enforceRateLimit(c, deps.signInPerEmail, `email:${email.trim().toLowerCase()}`, SIGN_IN_LIMITED);
}

/**
 * The account an address typed at sign-in belongs to. Addresses only: the
 * look-up also matches user ids, and `usr_…` typed in the e-mail field would
 * otherwise sign in under a limit key of its own.
 */
export async function accountByAddress(deps: DashboardDeps, email: string) {
  if (!email.includes('@')) return undefined;
  const user = await deps.accounts.findUser(email);
  return user && user.email.toLowerCase() === email.toLowerCase() ? user : undefined;
}

export function authRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const guard = originGuard(deps);
  const signedIn = requireSession(deps);
  const mailEnabled = deps.mailer !== null;

  r.get('/sign-in', async (c) => {
    const secret = getCookie(c, deps.cookieName);
    if (secret && (await deps.sessions.resolve(secret))) return c.redirect(safeNext(c.req.query('next'), deps.services.config.publicUrl), 303);
    // What the last sign-in form did ("a link is on its way"): a browser-bound flash, shown once.
    const flash = takeBrowserFlash(c, deps);
    return signInPage(c, {
      next: safeNext(c.req.query('next'), deps.services.config.publicUrl),
      mailEnabled,
      invitation: c.req.query('invitation') === '1',
      sso: deps.relyingParty?.settings.buttonLabel,
      // OIDC_ONLY: the password and link forms only for the break-glass owner, at /sign-in?break-glass (docs/sso.md).
      localForms: !deps.services.config.sso.oidcOnly || c.req.query('break-glass') !== undefined,
      notice: flash?.notice ? { text: flash.notice, tone: flash.tone ?? 'ok' } : undefined,
    });
  });

  r.post('/sign-in', guard, async (c) => {
    const f = await formOf(c);
    const email = (f.email ?? '').trim();
    const next = safeNext(f.next, deps.services.config.publicUrl);
    await limitSignIn(c, deps, email);
    const user = await accountByAddress(deps, email);
    // Keyed on the account too: however its address is typed, its guesses share one limit.
    if (user) await enforceRateLimit(c, deps.signInPerEmail, `user:${user.id}`, SIGN_IN_LIMITED);
    // Same answer and (roughly) the same time whether the address is unknown, has no password or a wrong one.
    const allowed = !deps.services.config.sso.oidcOnly || (await deps.services.sso.signOn.isBreakGlass(user?.id));
    if (!(await deps.passwords.verify(user?.id, f.password ?? '')) || !user || !allowed) {
      return signInPage(c, { next, email, mailEnabled, localForms: true, sso: deps.relyingParty?.settings.buttonLabel, error: 'That e-mail and password do not match an account with a password.' });
    }
    await startSession(c, deps, user.id, 'password');
    return c.redirect(next, 303);
  });

  r.post('/sign-in/link', guard, async (c) => {
    const f = await formOf(c);
    const email = (f.email ?? '').trim();
    await limitSignIn(c, deps, email);
    // Only a verified address gets a link. The e-mail is queued, never sent here: the answer takes the
    // same time and says the same whether or not the address has an account (src/notify/account-mail-worker.ts sends it).
    const user = email && deps.mailer ? await deps.accounts.findUserByVerifiedEmail(email) : undefined;
    if (user && (!deps.services.config.sso.oidcOnly || (await deps.services.sso.signOn.isBreakGlass(user.id)))) {
      const { secret, expiresAt } = await deps.links.issue(user.id);
      await deps.services.accountMail.enqueue({ to: user.email, kind: 'sign-in', link: signInUrl(deps.services.config.publicUrl, secret), linkExpiresAt: expiresAt });
    }
    // Post/Redirect/Get: a reload must not queue a second e-mail. The address is not echoed back.
    return redirectWithBrowserFlash(c, deps, '/sign-in', { notice: 'If that address belongs to an account, a sign-in link is on its way. It works once, for 15 minutes.' });
  });

  // GET never signs in: mail scanners prefetch links. The page's button POSTs.
  r.get('/auth/link', async (c) => {
    const secret = c.req.query('t') ?? '';
    return linkPage(c, secret, secret ? await deps.links.peek(secret) : undefined);
  });

  r.post('/auth/link', guard, async (c) => {
    const f = await formOf(c);
    const link = f.t ? await deps.links.consume(f.t) : undefined;
    if (!link) return linkPage(c, '', undefined);
    await startSession(c, deps, link.userId, 'link');
    // Every first sign-in lands on the feed, where the first alert shows (the first-run owner's
    // placeholder address is a banner there, not a gate).
    return c.redirect(link.invite ? '/feed' : '/', 303);
  });

  r.post('/sign-out', signedIn, async (c) => {
    const session = c.get('session');
    // RP-initiated logout: a session OpenID Connect started also ends at the provider, when it offers that.
    const viaOidc = deps.relyingParty && (await deps.services.sso.signOn.rows.sessionLink(session.idHash))?.via === 'oidc';
    await deps.sessions.end(session);
    clearSessionCookie(c, deps);
    const providerLogout = viaOidc ? await deps.relyingParty?.endSessionUrl(`${deps.services.config.publicUrl}/sign-in`) : undefined;
    return c.redirect(providerLogout ?? '/sign-in', 303);
  });

  r.post('/sign-out/everywhere', signedIn, async (c) => {
    await deps.sessions.endAll(c.get('viewer').id);
    clearSessionCookie(c, deps);
    return c.redirect('/sign-in', 303);
  });

  r.post('/sign-in/again', signedIn, async (c) => {
    await deps.sessions.end(c.get('session'));
    clearSessionCookie(c, deps);
    return redirectWithBrowserFlash(c, deps, '/sign-in', { notice: 'Your session has ended. Sign in again.', tone: 'warn' });
  });

  r.post('/workspace', signedIn, async (c) => {
    const id = (await formOf(c)).workspace;
    const target = c.get('workspaces').find((w) => w.id === id);
    if (target) await deps.sessions.switchWorkspace(c.get('session'), target.id);
    return c.redirect('/channels', 303);
  });

  return r;
}
