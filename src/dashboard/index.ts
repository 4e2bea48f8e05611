import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError } from '../domain/errors.js';
import { PROBLEM_TYPES, problemResponse } from '../http/problems.js';
import type { DashboardServices } from './dashboard-services.js';
import { createDashboardDeps, type DashboardDeps, type DashboardOptions } from './deps.js';

export type { DashboardOptions };
import type { DashEnv } from './http/env.js';
import { CrossSiteRefused, Forbidden, ReauthRequired } from './http/errors.js';
import { COMPRESSED_PAGES, compressedPage } from './http/compression.js';
import { applySecurityHeaders } from './http/security-headers.js';
import { localRedirect } from './http/local-redirect.js';
import { errorPage, notFoundPage, reauthPage } from './pages/errors.js';
import { appShellRoutes } from './routes/app-shell.js';
import { authRoutes } from './routes/auth.js';
import { ssoRoutes } from './routes/sso.js';
import { authProxy } from './sso/auth-proxy.js';
import { channelRoutes } from './routes/channels.js';
import { feedRoutes } from './routes/feed.js';
import { forumPostRoutes } from './routes/forum-posts.js';
import { feedStreamRoutes } from './routes/feed-stream.js';
import { invitationRoutes } from './routes/invitations.js';
import { memberRoutes } from './routes/members.js';
import { profileRoutes } from './routes/profile.js';
import { pushRoutes } from './routes/push.js';
import { searchRoutes } from './routes/search.js';
import { tokenRoutes } from './routes/tokens.js';
import { silenceRoutes } from './routes/silences.js';
import { alertDeliveryRoutes } from './routes/alert-deliveries.js';
import { heartbeatRoutes } from './routes/heartbeats.js';
import { unsubscribeRoutes } from './routes/unsubscribe.js';
import { alertActionRoutes } from './routes/alert-action.js';
import { usageRoutes } from './routes/usage.js';
import { dashboardStartupWarnings } from './startup-warnings.js';
import { assets } from './views/render.js';

/** The paths the dashboard owns: only these get its headers and HTML error pages. */
const DASHBOARD_PATH = /^\/(?:$|sign-in|sign-out|auth|assets|feed|search|alerts|channels|silences|heartbeats|tokens|members|usage|audit|profile|workspace|invite|invitations|unsubscribe|alert-action|push|push-sw\.js|manifest\.webmanifest|icons)(?:\/|$)/;

export function isDashboardPath(pathname: string): boolean {
  return DASHBOARD_PATH.test(pathname);
}

const wantsHtml = (c: Context) => (c.req.header('accept') ?? '').includes('text/html');

export interface Dashboard {
  deps: DashboardDeps;
  routes: Hono<DashEnv>;
  /**
   * For the parent app (not the sub-app: a sub-app's '*' middleware would put
   * its error handler around the API's routes too).
   */
  headers: MiddlewareHandler;
  /** The HTML 404 for browsers on a path nobody serves; undefined lets the API's JSON 404 answer. */
  notFound(c: Context): Response | Promise<Response> | undefined;
}

export function createDashboard(services: DashboardServices, opts: DashboardOptions = {}): Dashboard {
  const deps = createDashboardDeps(services, opts);
  for (const warning of dashboardStartupWarnings(services.config)) services.logger.warn(warning);
  const r = new Hono<DashEnv>();


  r.onError(async (err, c) => {
    if (err instanceof ReauthRequired) {
      const v = c.get('viewer');
      return reauthPage(c, err.fields, c.get('csrfToken'), v ? await deps.passwords.hasPassword(v.id) : false, err.wrongPassword);
    }
    // A 403 links back to the page the refused request came from (a same-origin Referer only).
    const back = localRedirect(c.req.header('referer'), services.config.publicUrl);
    if (err instanceof Forbidden) return errorPage(c, 403, 'Not allowed', err.reason, back);
    if (err instanceof CrossSiteRefused) return errorPage(c, 403, 'Request refused', `${err.why}. Reload the page and try again.`, back);
    if (err instanceof AppError) {
      if (!wantsHtml(c) || err.code === 'rate-limited') {
        // The same problem document (and Retry-After) as the API.
        if (!wantsHtml(c)) return problemResponse(c, services.config.publicUrl, err);
        c.header('Retry-After', String(err.extensions.retryAfter ?? 60));
      }
      const t = PROBLEM_TYPES[err.code];
      return errorPage(c, t.status as ContentfulStatusCode, t.title[0]!.toUpperCase() + t.title.slice(1), err.detail ?? t.description);
    }
    services.logger.error({ err, path: c.req.path }, 'dashboard error');
    return errorPage(c, 500, 'Something went wrong', 'Nothing was changed. Try again in a moment.');
  });

  // Dashboard paths only (this sub-app): /api and /mcp never honour the proxy's header.
  const proxy = services.config.sso.authProxy;
  if (proxy) r.use('*', async (c, next) => (isDashboardPath(c.req.path) && !c.req.path.startsWith('/assets/') ? authProxy(deps, proxy)(c, next) : next()));
  r.get('/', (c) => c.redirect('/feed', 303));
  r.route('/', assets().routes());
  r.route('/', appShellRoutes());
  r.route('/', authRoutes(deps));
  if (deps.relyingParty) r.route('/', ssoRoutes(deps, deps.relyingParty));
  r.route('/', feedStreamRoutes(deps));
  r.route('/', feedRoutes(deps));
  r.route('/', forumPostRoutes(deps));
  r.route('/', searchRoutes(deps));
  r.route('/', channelRoutes(deps));
  r.route('/', silenceRoutes(deps));
  r.route('/', alertDeliveryRoutes(deps));
  r.route('/', heartbeatRoutes(deps));
  r.route('/', tokenRoutes(deps));
  r.route('/', memberRoutes(deps));
  r.route('/', invitationRoutes(deps));
  r.route('/', usageRoutes(deps));
  r.route('/', profileRoutes(deps));
  r.route('/', pushRoutes(deps));
  r.route('/', unsubscribeRoutes(deps));
  r.route('/', alertActionRoutes(deps));

  return {
    deps,
    routes: r,
    headers: async (c, next) => {
      await next();
      if (!isDashboardPath(c.req.path)) return;
      applySecurityHeaders(c.res.headers);
      // Pages show per-user data and sometimes a secret shown once: never cached.
      if (c.res.headers.get('content-type')?.startsWith('text/html')) c.res.headers.set('Cache-Control', 'no-store');
      if (c.req.method === 'GET' && COMPRESSED_PAGES.test(c.req.path)) {
        const out = await compressedPage(c.res, c.req.header('accept-encoding'));
        if (out !== c.res) {
          // Replaced outright: Hono's `c.res =` would carry the old headers over.
          c.res = undefined;
          c.res = out;
        }
      }
    },
    notFound: (c) => {
      if (!isDashboardPath(c.req.path) && !wantsHtml(c)) return undefined;
      if (c.req.path.startsWith('/api/')) return undefined;
      const res = notFoundPage(c);
      return Promise.resolve(res).then((out) => {
        applySecurityHeaders(out.headers);
        return out;
      });
    },
  };
}
