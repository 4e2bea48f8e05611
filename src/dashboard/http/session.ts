import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { SESSION_ABSOLUTE_MS } from '../../domain/auth/sessions.js';
import { readBodyCapped } from '../../http/body.js';
import type { DashboardDeps } from '../deps.js';
import type { Role } from '../ports.js';
import { clientAddress } from './client-address.js';
import { CSRF_FIELD, CSRF_HEADER, csrfTokenFor, isStateChanging, maskToken, sameOrigin, tokenMatches } from './csrf.js';
import type { DashEnv } from './env.js';
import { CrossSiteRefused, Forbidden } from './errors.js';
import { loadFlash } from './flash.js';

export function setSessionCookie(c: Context, deps: DashboardDeps, secret: string): void {
  setCookie(c, deps.cookieName, secret, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: deps.secureCookies,
    maxAge: Math.floor(SESSION_ABSOLUTE_MS / 1000),
  });
}

export function clearSessionCookie(c: Context, deps: DashboardDeps): void {
  deleteCookie(c, deps.cookieName, { path: '/', secure: deps.secureCookies });
}

/** No dashboard form comes near this; a bigger body is refused before it is buffered. */
export const MAX_FORM_BYTES = 64 * 1024;
const forms = new WeakMap<Request, Promise<Record<string, string>>>();

/**
 * The request's url-encoded form fields (read once, capped; the CSRF check
 * and the route share it). Any other body type yields no fields, so the
 * route answers with its field errors.
 */
export function formOf(c: Context): Promise<Record<string, string>> {
  let form = forms.get(c.req.raw);
  if (!form) {
    form = (async () => {
      if (!(c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded')) return {};
      const bytes = await readBodyCapped(c.req.raw, MAX_FORM_BYTES, 'the form');
      // Repeated fields: the last wins (no dashboard form repeats a name).
      return Object.fromEntries(new URLSearchParams(new TextDecoder().decode(bytes)));
    })();
    forms.set(c.req.raw, form);
  }
  return form;
}

/** Refuses state-changing requests that did not come from our own pages (sign-in forms included). */
export function originGuard(deps: DashboardDeps): MiddlewareHandler {
  return async (c, next) => {
    if (isStateChanging(c.req.method) && !sameOrigin(c, deps.origin)) throw new CrossSiteRefused('the request did not come from this site');
    await next();
  };
}

/**
 * Signed-in pages: resolves the cookie to a live session (or sends the browser
 * to the sign-in page), loads the viewer and the current workspace, and checks
 * Origin and the CSRF token on every state-changing request.
 */
export function requireSession(deps: DashboardDeps): MiddlewareHandler<DashEnv> {
  return async (c, next) => {
    const secret = getCookie(c, deps.cookieName);
    const session = secret ? await deps.sessions.resolve(secret) : undefined;
    const user = session ? await deps.accounts.findUser(session.userId) : undefined;
    if (!secret || !session || !user) {
      if (secret) clearSessionCookie(c, deps);
      if (isStateChanging(c.req.method)) throw new CrossSiteRefused('your session has ended: sign in again');
      const next = new URL(c.req.url);
      return c.redirect(`/sign-in?next=${encodeURIComponent(next.pathname + next.search)}`, 303);
    }
    const csrf = csrfTokenFor(secret);
    if (isStateChanging(c.req.method)) {
      if (!sameOrigin(c, deps.origin)) throw new CrossSiteRefused('the request did not come from this site');
      const presented = c.req.header(CSRF_HEADER) ?? (await formOf(c))[CSRF_FIELD];
      if (!tokenMatches(presented, csrf)) throw new CrossSiteRefused('the form is out of date or did not come from this site');
    }
    const workspaces = await deps.accounts.workspacesOf(user.id);
    const workspace = workspaces.find((w) => w.id === session.workspaceId) ?? workspaces[0];
    if (workspace && workspace.id !== session.workspaceId) await deps.sessions.switchWorkspace(session, workspace.id);
    c.set('dash', deps);
    c.set('session', session);
    c.set('sessionSecret', secret);
    c.set('viewer', user);
    c.set('workspace', workspace);
    c.set('workspaces', workspaces);
    // Masked afresh for each response (BREACH: pages are compressed and reflect input).
    c.set('csrfToken', maskToken(csrf));
    c.set('clientAddress', clientAddress(c, deps.services.config.trustProxy));
    // Only for whole pages: the frame shows them; fragments and streams have no frame.
    const wholePage = c.req.method === 'GET' && !c.req.header('hx-request') && (c.req.header('accept') ?? '').includes('text/html');
    c.set('pendingInvitations', wholePage ? (await deps.invitations.pendingFor(user)).length : 0);
    await loadFlash(c, deps, secret);
    await next();
  };
}

/** The current workspace, and a 403 unless the viewer's role is one of `roles`. */
export function requireRole(c: Context<DashEnv>, roles: readonly Role[] = ['owner', 'admin', 'member']) {
  const ws = c.get('workspace');
  if (!ws) throw new Forbidden('you are not a member of any workspace');
  if (!roles.includes(ws.role)) throw new Forbidden(`this needs the ${roles.join(' or ')} role; you are a ${ws.role}`);
  return ws;
}

export const isManager = (role: Role | undefined) => role === 'owner' || role === 'admin';
