import type { ChannelView } from '../../domain/read-api.js';
import { asset } from '../views/render.js';

/** Which feed a page shows: every channel, the unread view, or one channel. */
export type FeedScope = { kind: 'all' } | { kind: 'unread' } | { kind: 'channel'; channel: ChannelView };

const unreadLabel = (n: number) => (n === 0 ? 'no unread alerts' : n === 1 ? '1 unread alert' : `${n} unread alerts`);

function Badge(props: { count: number; channelId?: string }) {
  return (
    <span class="badge" data-unread-for={props.channelId ?? '*'} hidden={props.count === 0}>
      {props.count > 999 ? '999+' : String(props.count)}
    </span>
  );
}

/** The feeds: All channels, Unread and each visible channel with its unread badge. `scope` marks the current one (none on the search page). */
export function Sidebar(props: { channels: ChannelView[]; scope?: FeedScope | undefined; total: number }) {
  const scope = props.scope;
  const current = (k: FeedScope['kind'], id?: string) =>
    scope?.kind === k && (k !== 'channel' || (scope.kind === 'channel' && scope.channel.id === id)) ? 'page' : undefined;
  return (
    <nav class="feed-side" aria-label="Feeds">
      <ul>
        <li>
          <a href="/feed" aria-current={current('all')}>
            <span class="feed-side-name">All channels</span>
          </a>
        </li>
        <li>
          <a href="/feed/unread" aria-current={current('unread')} aria-label={`Unread, ${unreadLabel(props.total)}`} data-label-for="*" data-label="Unread">
            <span class="feed-side-name">Unread</span>
            <Badge count={props.total} />
          </a>
        </li>
      </ul>
      <h2 class="feed-side-title">Channels</h2>
      <ul>
        {props.channels.map((ch) => (
          <li>
            <a
              href={`/feed/c/${ch.slug}`}
              aria-current={current('channel', ch.id)}
              aria-label={`${ch.name}${ch.chat ? ' (chat)' : ''}, ${unreadLabel(ch._count.alerts)}`}
              data-label-for={ch.id}
              data-label={`${ch.name}${ch.chat ? ' (chat)' : ''}`}
            >
              <span aria-hidden="true">{ch.icon}</span>
              <span class="feed-side-name">{ch.name}</span>
              {ch.chat ? (
                <span class="chat-tag" title="Connected to a Discord channel">
                  chat
                </span>
              ) : null}
              <Badge count={ch._count.alerts} channelId={ch.id} />
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}


/** What every page with the feed's frame loads: the card and feed styles and the feed's script (times, badges, keys); `live` adds the shared live stream. */
export function FeedAssets(props: { live?: boolean }) {
  return (
    <>
      <link rel="stylesheet" href={asset('alert-card.css')} />
      <link rel="stylesheet" href={asset('feed.css')} />
      <script src={asset('feed.js')} defer></script>
      <script src={asset('feed-lifecycle.js')} defer></script>
      {props.live ? <script src={asset('feed-live.js')} defer></script> : null}
    </>
  );
}
