import type { Context } from 'hono';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { digest } from '../../domain/auth/secrets.js';
import { OIDC_STATE_TTL_MS } from '../../domain/auth/sso/sealed-state.js';
import type { DashboardDeps } from '../deps.js';
import { clientAddress } from '../http/client-address.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlashFor } from '../http/flash.js';
import { linkTokenMatches, OIDC_LINK_PURPOSE } from '../http/csrf.js';
import { CrossSiteRefused } from '../http/errors.js';
import { formOf, originGuard, requireSession } from '../http/session.js';
import { failedPage, linkNeededPage, refusedPage } from '../pages/sso.js';
import type { PendingSignIn, RelyingParty } from '../sso/relying-party.js';
import { safeNext, startSession } from './auth.js';

const STATE_COOKIE = 'ab_oidc';
const MAX_LOGOUT_TOKEN = 16 * 1024;

function stateCookieName(deps: DashboardDeps): string {
  return deps.secureCookies ? `__Host-${STATE_COOKIE}` : STATE_COOKIE;
}

/** The sealed sign-in state: SameSite=Lax so the provider's top-level redirect back carries it. */
function setStateCookie(c: Context, deps: DashboardDeps, pending: PendingSignIn): void {
  setCookie(c, stateCookieName(deps), deps.services.sso.sealedState.seal({ ...pending }), {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: deps.secureCookies,
    maxAge: Math.floor(OIDC_STATE_TTL_MS / 1000),
  });
}

function takeStateCookie(c: Context, deps: DashboardDeps): PendingSignIn | undefined {
  const raw = getCookie(c, stateCookieName(deps));
  if (raw !== undefined) deleteCookie(c, stateCookieName(deps), { path: '/', secure: deps.secureCookies });
  const p = deps.services.sso.sealedState.open(raw);
  if (!p || typeof p.state !== 'string' || typeof p.nonce !== 'string' || typeof p.verifier !== 'string' || typeof p.next !== 'string') return undefined;
  return { state: p.state, nonce: p.nonce, verifier: p.verifier, next: p.next, linkUser: typeof p.linkUser === 'string' ? p.linkUser : undefined };
}

/** Error names only: openid-client's messages may quote the provider's answer, and no code or token may reach a log line. */
const errorName = (err: unknown) => (err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : err instanceof Error ? err.name : 'error');

export function ssoRoutes(deps: DashboardDeps, rp: RelyingParty): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const guard = originGuard(deps);
  const signedIn = requireSession(deps);
  const { logger } = deps.services;
  const sso = deps.services.sso.signOn;
  const label = rp.settings.buttonLabel;

  const begin = async (c: Context, next: string, linkUser?: string) => {
    let started: Awaited<ReturnType<RelyingParty['start']>>;
    try {
      started = await rp.start(next, linkUser);
    } catch (err) {
      logger.warn({ error: errorName(err) }, 'OpenID provider unavailable');
      return failedPage(c, label, 'unavailable');
    }
    setStateCookie(c, deps, started.pending);
    return c.redirect(started.url, 303);
  };

  // A link (GET), not a form: CSP's form-action 'self' would stop a form's redirect to the provider. Starting
  // changes nothing here but the browser's own sealed cookie; the POST stays for clients that post.
  r.get('/auth/oidc/start', async (c) => begin(c, safeNext(c.req.query('next'), deps.services.config.publicUrl)));
  r.post('/auth/oidc/start', guard, async (c) => begin(c, safeNext((await formOf(c)).next, deps.services.config.publicUrl)));

  // Linking from the profile: a link (GET) carrying a token derived for this purpose from the session, for the
  // same CSP reason as above; a page elsewhere cannot know the token. The CSRF-checked POST stays for clients.
  r.get('/profile/oidc/link', signedIn, async (c) => {
    if (c.req.header('sec-fetch-site') === 'cross-site' || !linkTokenMatches(c.req.query('token'), c.get('sessionSecret'), OIDC_LINK_PURPOSE)) {
      throw new CrossSiteRefused('the link is out of date or did not come from this site');
    }
    return begin(c, '/profile', c.get('viewer').id);
  });
  r.post('/profile/oidc/link', signedIn, async (c) => begin(c, '/profile', c.get('viewer').id));

  r.get('/auth/oidc/callback', async (c) => {
    const pending = takeStateCookie(c, deps);
    if (!pending) return failedPage(c, label, 'expired');
    if (c.req.query('error') !== undefined) return failedPage(c, label, 'provider');
    let who: Awaited<ReturnType<RelyingParty['finish']>>;
    try {
      who = await rp.finish(new URL(c.req.url, deps.services.config.publicUrl), pending);
    } catch (err) {
      logger.warn({ error: errorName(err) }, 'OpenID sign-in refused');
      return failedPage(c, label, 'invalid');
    }
    const from = clientAddress(c, deps.services.config.trustProxy);
    if (pending.linkUser) {
      const secret = getCookie(c, deps.cookieName);
      const session = secret ? await deps.sessions.resolve(secret) : undefined;
      if (!secret || session?.userId !== pending.linkUser) return failedPage(c, label, 'expired');
      const linked = await sso.link(session.userId, who.issuer, who.subject);
      return redirectWithFlashFor(c, deps, secret, '/profile', linked
        ? { notice: `Your account is linked to ${label}: you can sign in with it from now on.` }
        : { notice: `That ${label} account is linked to another account here, so nothing changed.`, tone: 'warn' });
    }
    const outcome = await sso.resolve(who, deps.ssoPolicy);
    if (outcome.kind === 'link-needed') return linkNeededPage(c, label);
    if (outcome.kind === 'refused') return refusedPage(c, outcome.reason, label);
    await sso.syncGroups(outcome.userId, who.groups, from);
    const secret = await startSession(c, deps, outcome.userId, 'oidc');
    await sso.recordSession({ sessionHash: digest(secret), issuer: who.issuer, subject: who.subject, sid: who.sid ?? null, via: 'oidc' });
    return c.redirect(outcome.created ? '/feed' : pending.next, 303);
  });

  // Called by the provider, server to server: no cookie, no CSRF token; the logout token is the credential.
  r.post('/auth/oidc/backchannel-logout', async (c) => {
    c.header('Cache-Control', 'no-store');
    const length = Number(c.req.header('content-length') ?? '0');
    if (length > MAX_LOGOUT_TOKEN) return c.json({ error: 'invalid_request' }, 400);
    const token = (await formOf(c).catch(() => ({}) as Record<string, string>)).logout_token;
    if (!token || token.length > MAX_LOGOUT_TOKEN) return c.json({ error: 'invalid_request', error_description: 'logout_token is required' }, 400);
    try {
      const claims = await rp.verifyLogoutToken(token);
      const ended = await sso.endProviderSessions(claims.issuer, claims.subject, claims.sid);
      logger.info({ ended }, 'back-channel logout');
      return c.body(null, 200);
    } catch (err) {
      logger.warn({ error: errorName(err) }, 'back-channel logout token refused');
      return c.json({ error: 'invalid_request', error_description: 'the logout token could not be verified' }, 400);
    }
  });

  return r;
}
