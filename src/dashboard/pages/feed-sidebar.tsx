import type { ChannelView } from '../../domain/read-api.js';
import { Icon } from '../views/layout.js';
import { asset } from '../views/render.js';

const CHANNELS_ICON = 'M4 6h4M4 12h4M4 18h4M12 6h8M12 12h8M12 18h8';
const CLOSE_ICON = 'M6 6l12 12M18 6L6 18';

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
  // On a phone the list is a drawer (a popover: opens and closes without script, Escape and a tap outside close it);
  // on a desktop the same element is the column beside the feed (feed.css overrides the popover's hiding).
  return (
    <>
      <button type="button" class="button small feed-drawer-toggle" popovertarget="feed-side">
        <Icon d={CHANNELS_ICON} /> Channels
      </button>
    <nav class="feed-side" id="feed-side" popover="auto" aria-label="Feeds">
      <div class="feed-drawer-head">
        <h2>Feeds</h2>
        <button type="button" class="top-icon" popovertarget="feed-side" popovertargetaction="hide" aria-label="Close the channel list" title="Close">
          <Icon d={CLOSE_ICON} />
        </button>
      </div>
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
    </>
  );
}


/**
 * What every page with the feed's frame loads: the card and feed styles and the feed's scripts
 * (times, badges, keys, and the live stream, which starts only on a feed: `.feed-layout[data-stream]`).
 */
export function FeedAssets() {
  return (
    <>
      <link rel="stylesheet" href={asset('feed-bundle.css')} />
      <script src={asset('feed-bundle.js')} defer></script>
    </>
  );
}
