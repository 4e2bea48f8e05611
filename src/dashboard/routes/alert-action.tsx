import type { Context } from 'hono';
import { Hono } from 'hono';
import type { ActionGrant, LinkAction } from '../../domain/alert-action-links.js';
import { AppError } from '../../domain/errors.js';
import { readBodyCapped } from '../../http/body.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { formOf } from '../http/session.js';
import { redirectWithBrowserFlash, takeBrowserFlash } from '../http/public-flash.js';
import { errorPage } from '../pages/errors.js';
import { linkDonePage } from '../pages/link-done.js';
import { publicPage } from '../views/render.js';

const VERB: Record<LinkAction, string> = { acknowledge: 'Acknowledge', resolve: 'Resolve' };
const DONE: Record<LinkAction, string> = { acknowledge: 'Acknowledged', resolve: 'Resolved' };

/**
 * An e-mail's Acknowledge and Resolve buttons (src/domain/alert-action-links.ts). GET only shows
 * who would act on what (mail scanners fetch links); the button POSTs, and the link then acts once,
 * as its recipient, while they can still see the alert, recorded "via email". No session needed:
 * the signed link is the authority, as for unsubscribe.
 */
export function alertActionRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const { services } = deps;
  const invalid = (c: Context, why: 'invalid' | 'expired' | 'used' | 'gone') =>
    errorPage(
      c,
      why === 'gone' ? 404 : 410,
      why === 'used' ? 'Link already used' : why === 'expired' ? 'Link expired' : why === 'gone' ? 'Alert not found' : 'Link not valid',
      why === 'gone'
        ? 'This alert was deleted, or you can no longer see it.'
        : 'E-mail buttons work once, for 24 hours. Open the alert in Alertbridge to handle it there.',
    );

  /** The grant, the person it names and the alert they would act on; undefined when any of them is gone. */
  const resolve = async (token: string) => {
    const grant = services.alertActionLinks.read(token);
    if (typeof grant === 'string') return grant;
    if (grant.via !== 'email' || grant.action === 'any') return 'invalid' as const;
    const user = await services.accounts.findUser(grant.userId);
    if (!user) return 'gone' as const;
    try {
      const memberOf = async (channelId: string, userId: string) => {
        const channel = await services.accounts.requireChannel(channelId);
        return (await services.accounts.workspacesOf(userId)).some((w) => w.id === channel.workspaceId) ? channel.workspaceId : undefined;
      };
      const p = await services.alertActions.principalFor(user.id, grant.alertId, memberOf, 'email-link');
      const alert = await services.readApi.getAlert(p, grant.alertId);
      return { grant: grant as ActionGrant & { action: LinkAction }, user, p, alert };
    } catch (err) {
      if (err instanceof AppError && err.code === 'not-found') return 'gone' as const;
      throw err;
    }
  };
  // A push notification's button, posted by the service worker (assets/push-sw.js) with the token the
  // encrypted payload carried: JSON in, JSON out, no session (a closed browser has none to offer).
  r.post('/alert-action/push', async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(await readBodyCapped(c.req.raw, 4096, 'the action')));
    } catch {
      throw new AppError('invalid-body', 'the body must be JSON: {"token": "…", "action": "acknowledge" | "resolve"}');
    }
    const { token, action } = (typeof body === 'object' && body !== null ? body : {}) as { token?: unknown; action?: unknown };
    if (typeof token !== 'string' || (action !== 'acknowledge' && action !== 'resolve')) {
      throw new AppError('invalid-body', 'the body must be {"token": "…", "action": "acknowledge" | "resolve"}');
    }
    const grant = services.alertActionLinks.read(token);
    if (typeof grant === 'string' || grant.via !== 'push') return c.json({ success: false, reason: grant === 'expired' ? 'expired' : 'invalid' }, 410);
    const user = await services.accounts.findUser(grant.userId);
    const memberOf = async (channelId: string, userId: string) => {
      const channel = await services.accounts.requireChannel(channelId);
      return (await services.accounts.workspacesOf(userId)).some((w) => w.id === channel.workspaceId) ? channel.workspaceId : undefined;
    };
    if (!user) throw new AppError('not-found', 'alert not found');
    const p = await services.alertActions.principalFor(user.id, grant.alertId, memberOf, 'push');
    if (!(await services.readApi.getAlert(p, grant.alertId))) throw new AppError('not-found', 'alert not found');
    if (!(await services.alertActionLinks.use(grant))) return c.json({ success: false, reason: 'used' }, 410);
    await services.alertActions.change(p, grant.alertId, { status: action === 'acknowledge' ? 'acknowledged' : 'resolved' }, 'push');
    return c.json({ success: true, alertId: grant.alertId, status: action === 'acknowledge' ? 'acknowledged' : 'resolved' }, 200);
  });

  const titleOf = (alert: { message: string | null } & ({ title: string } | object)) => ('title' in alert ? alert.title : (alert.message ?? 'message'));

  r.get('/alert-action', async (c) => {
    const token = c.req.query('t') ?? '';
    const found = await resolve(token);
    if (typeof found === 'string') return invalid(c, found);
    const { grant, user, alert } = found;
    return publicPage(
      c,
      `${VERB[grant.action]} alert`,
      <section class="card narrow">
        <h1>
          {VERB[grant.action]} “{titleOf(alert)}”?
        </h1>
        <p>
          You act as <strong>{user.name}</strong> ({user.email}) in #{alert.channelSlug}. Everyone in the workspace will see that you did.
        </p>
        <p class="muted">Status now: {alert.status}.</p>
        <form method="post" action={`/alert-action?${new URLSearchParams({ t: token })}`}>
          <button type="submit" class="button primary">
            {VERB[grant.action]} as {user.name}
          </button>
        </form>
      </section>,
    );
  });

  r.post('/alert-action', async (c) => {
    await formOf(c);
    const found = await resolve(c.req.query('t') ?? '');
    if (typeof found === 'string') return invalid(c, found);
    const { grant, p, alert } = found;
    if (!(await services.alertActionLinks.use(grant))) return invalid(c, 'used');
    await services.alertActions.change(p, grant.alertId, { status: grant.action === 'acknowledge' ? 'acknowledged' : 'resolved' }, 'email');
    // Post/Redirect/Get: a reload of the result loads it with GET, which never acts (and the link is spent anyway).
    const title = titleOf(alert);
    return redirectWithBrowserFlash(c, deps, '/alert-action/done', {
      done: {
        heading: `${DONE[grant.action]} “${title.length > 200 ? `${title.slice(0, 199)}…` : title}”`,
        link: { href: `/feed/c/${encodeURIComponent(alert.channelSlug)}`, label: `Open #${alert.channelSlug} in Alertbridge` },
      },
    });
  });

  r.get('/alert-action/done', (c) =>
    linkDonePage(c, takeBrowserFlash(c, deps)?.done, {
      title: 'Nothing more to do',
      text: 'This e-mail button was used already. The alert’s state and who changed it are in Alertbridge.',
      link: { href: '/feed', label: 'Open Alertbridge' },
    }),
  );
  return r;
}
