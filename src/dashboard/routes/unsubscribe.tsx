import type { Context } from 'hono';
import { Hono } from 'hono';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { formOf } from '../http/session.js';
import { errorPage } from '../pages/errors.js';
import { publicPage } from '../views/render.js';

/** GET shows a button (link scanners must not unsubscribe anyone); POST (the button, or the mail provider's one click) does it. */
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
          <input type="hidden" name="List-Unsubscribe" value="One-Click" />
          <button type="submit" class="button primary">
            Stop e-mails from {name}
          </button>
        </form>
      </section>,
    );
  });

  r.post('/unsubscribe', async (c) => {
    const { u, ch, s } = params(c);
    await formOf(c);
    const name = await channelName(ch);
    if (!deps.unsubscribe.verify(u, ch, s) || !name) return invalid(c);
    // Someone who can no longer see the channel gets no mail from it anyway: done either way.
    if (await deps.services.notifyPrefs.recipient(ch, u)) await deps.services.notifyPrefs.set(u, ch, 'none');
    return publicPage(
      c,
      'Unsubscribed',
      <section class="card narrow">
        <h1>Unsubscribed</h1>
        <p>You will get no more notification e-mails from {name}.</p>
      </section>,
    );
  });
  return r;
}
