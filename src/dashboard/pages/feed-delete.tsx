import type { Context } from 'hono';
import type { ChannelView, SingleAlertView } from '../../domain/read-api.js';
import { AlertCard, toCardModel } from '../../alert-card/index.js';
import type { DashEnv } from '../http/env.js';
import { Csrf } from '../views/layout.js';
import { asset, page } from '../views/render.js';

/** "Delete this alert?" with the card itself, so the manager sees exactly what goes. */
export function deleteAlertPage(c: Context<DashEnv>, o: { alert: SingleAlertView; channel: ChannelView; back: string }) {
  return page(
    c,
    'Delete alert',
    'feed',
    <>
      <link rel="stylesheet" href={asset('feed-bundle.css')} />
      <h1>Delete this alert?</h1>
      <p class="lead">
        It disappears for everyone in #{o.channel.slug}, with its files, at once. This cannot be undone.
      </p>
      <div class="feed-list">
        <AlertCard card={toCardModel(o.alert)} styling="classes" channel={{ icon: o.channel.icon, slug: o.channel.slug }} />
      </div>
      <form method="post" action={`/feed/delete/${o.alert.id}`} class="actions">
        <Csrf token={c.get('csrfToken')} />
        <input type="hidden" name="back" value={o.back} />
        <button type="submit" class="button danger">
          Delete alert
        </button>{' '}
        <a href={o.back} class="button ghost">
          Cancel
        </a>
      </form>
    </>,
  );
}
