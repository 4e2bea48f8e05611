import type { Context } from 'hono';
import { Hono } from 'hono';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { formOf } from '../http/session.js';
import { takeBrowserFlash, redirectWithBrowserFlash } from '../http/public-flash.js';
import { errorPage } from '../pages/errors.js';
import { linkDonePage } from '../pages/link-done.js';
import { publicPage } from '../views/render.js';

/**
 * GET shows a button (link scanners must not unsubscribe anyone); POST does it. The mail provider's
 * RFC 8058 one-click POST (body `List-Unsubscribe=One-Click`, from its servers, no browser behind it)
 * gets its 200 at once; the page's button, pressed by a person, gets Post/Redirect/Get: 303 to
 * /unsubscribe/done, which shows the result once through a browser-bound flash (no session needed).
 */
export function unsubscribeRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const params = (c: Context) => ({ u: c.req.query('u') ?? '', ch: c.req.query('c') ?? '', s: c.req.query('s') ?? '' });
  const channelName = async (id: string): Promise<string | undefined> => {
    try {
      return (await deps.services.accounts.requireChannel(id)).name;
    } catch {
      return undefined; // a channel deleted since the e-mail was sent: the link is no longer valid
    }
  };
  const invalid = (c: Context) => errorPage(c, 404, 'Link not valid', 'This unsubscribe link is incomplete or was changed. Manage e-mails in the channel settings instead.');

  r.get('/unsubscribe', async (c) => {
    const { u, ch, s } = params(c);
    const name = await channelName(ch);
    if (!deps.unsubscribe.verify(u, ch, s) || !name) return invalid(c);
    return publicPage(
      c,
      'Unsubscribe',
      <section class="card narrow">
        <h1>Stop e-mails from {name}?</h1>
        <p>You will get no more notification e-mails from this channel. You can turn them on again in its settings.</p>
        <form method="post" action={`/unsubscribe?${new URLSearchParams({ u, c: ch, s })}`}>
          <button type="submit" class="button primary">
            Stop e-mails from {name}
          </button>
        </form>
      </section>,
    );
  });

  r.post('/unsubscribe', async (c) => {
    const { u, ch, s } = params(c);
    const oneClick = (await formOf(c))['List-Unsubscribe'] === 'One-Click';
    const name = await channelName(ch);
    if (!deps.unsubscribe.verify(u, ch, s) || !name) return invalid(c);
    // Someone who can no longer see the channel gets no mail from it anyway: done either way.
    if (await deps.services.notifyPrefs.recipient(ch, u)) await deps.services.notifyPrefs.set(u, ch, 'none');
    if (!oneClick) {
      return redirectWithBrowserFlash(c, deps, '/unsubscribe/done', {
        done: { heading: 'Unsubscribed', text: `You will get no more notification e-mails from ${name}. You can turn them on again in its settings.` },
      });
    }
    return publicPage(
      c,
      'Unsubscribed',
      <section class="card narrow">
        <h1>Unsubscribed</h1>
        <p>You will get no more notification e-mails from {name}.</p>
      </section>,
    );
  });
  r.get('/unsubscribe/done', (c) =>
    linkDonePage(c, takeBrowserFlash(c, deps)?.done, {
      title: 'Nothing more to do',
      text: 'This unsubscribe was done already. Which e-mails you get is in each channel’s settings.',
      link: { href: '/channels', label: 'Open channel settings' },
    }),
  );
  return r;
}
