import type { Context } from 'hono';
import type { AlertLevel } from '../../domain/alert-store.js';
import type { ChannelView } from '../../domain/read-api.js';
import { AlertCard, toCardModel } from '../../views/alert-card/index.js';
import type { FeedPage } from '../feed/feed-query.js';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import { Notice } from '../views/components.js';
import { Csrf } from '../views/layout.js';
import { asset, page } from '../views/render.js';

export const LEVELS: readonly AlertLevel[] = ['INFO', 'SUCCESS', 'WARNING', 'ERROR'];

/** Which feed a page shows: every channel, the unread view across channels, or one channel. */
export type FeedScope = { kind: 'all' } | { kind: 'unread' } | { kind: 'channel'; channel: ChannelView };

export interface FeedState {
  scope: FeedScope;
  level?: AlertLevel | undefined;
  unreadOnly: boolean;
  membersOnly: boolean;
}

/** The feed's URL for a state: filters are query parameters, so every view is a plain link that works without JS. */
export function feedUrl(s: FeedState, extra: Record<string, string> = {}): string {
  const path = s.scope.kind === 'all' ? '/feed' : s.scope.kind === 'unread' ? '/feed/unread' : `/feed/c/${s.scope.channel.slug}`;
  const q = new URLSearchParams();
  if (s.level) q.set('level', s.level);
  if (s.unreadOnly && s.scope.kind !== 'unread') q.set('unread', '1');
  if (s.membersOnly) q.set('members', '1');
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const qs = q.toString();
  return qs ? `${path}?${qs}` : path;
}

const unreadLabel = (n: number) => (n === 0 ? 'no unread alerts' : n === 1 ? '1 unread alert' : `${n} unread alerts`);

function Badge(props: { count: number; channelId?: string }) {
  return (
    <span class="badge" data-unread-for={props.channelId ?? '*'} hidden={props.count === 0}>
      {props.count > 999 ? '999+' : String(props.count)}
    </span>
  );
}

function Sidebar(props: { channels: ChannelView[]; state: FeedState; total: number }) {
  const { scope } = props.state;
  const current = (k: FeedScope['kind'], id?: string) =>
    scope.kind === k && (k !== 'channel' || (scope.kind === 'channel' && scope.channel.id === id)) ? 'page' : undefined;
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

function Filters(props: { state: FeedState }) {
  const s = props.state;
  const chat = s.scope.kind === 'channel' && s.scope.channel.chat;
  return (
    <form method="get" action={feedUrl({ ...s, level: undefined, unreadOnly: false, membersOnly: false })} class="feed-filters">
      {chat ? (
        <label class="check">
          <input type="checkbox" name="members" value="1" checked={s.membersOnly} data-autosubmit /> Members only
        </label>
      ) : (
        <>
          <label for="feed-level">Level</label>
          <select id="feed-level" name="level" data-autosubmit>
            <option value="">All levels</option>
            {LEVELS.map((l) => (
              <option value={l} selected={s.level === l}>
                {l[0] + l.slice(1).toLowerCase()}
              </option>
            ))}
          </select>
        </>
      )}
      {s.scope.kind === 'unread' ? null : (
        <label class="check">
          <input type="checkbox" name="unread" value="1" checked={s.unreadOnly} data-autosubmit /> Unread only
        </label>
      )}
      <button type="submit" class="button small js-hide">
        Apply
      </button>
    </form>
  );
}

/** The cards of one page and the "Load older" button that fetches the next (htmx swaps the button for the page). */
export function FeedItems(props: { feed: FeedPage; state: FeedState; csrfToken: string; manager: boolean }) {
  const single = props.state.scope.kind === 'channel';
  return (
    <>
      {props.feed.items.map(({ alert, channel }) => (
        <FeedEntry alert={alert} channel={channel} showChannel={!single} csrfToken={props.csrfToken} manager={props.manager} />
      ))}
      {props.feed.nextCursor ? (
        <li class="feed-more">
          <a
            class="button load-older"
            href={feedUrl(props.state, { before: props.feed.nextCursor })}
            hx-get={feedUrl(props.state, { before: props.feed.nextCursor, fragment: '1' })}
            hx-trigger="revealed, click"
            hx-target="closest li"
            hx-swap="outerHTML"
          >
            Load older
          </a>
        </li>
      ) : null}
    </>
  );
}

/** One card with its read control: a form (works without JS) that htmx posts in place. */
export function FeedEntry(props: { alert: FeedPage['items'][number]['alert']; channel: ChannelView; showChannel: boolean; csrfToken: string; manager?: boolean }) {
  const { alert, channel } = props;
  return (
    <li
      class="feed-entry"
      id={`alert-${alert.id}`}
      data-alert-id={alert.id}
      data-channel-id={channel.id}
      data-read={alert.isRead ? 'true' : 'false'}
      data-level={'level' in alert ? alert.level : undefined}
      data-role={'author' in alert ? alert.author.role : undefined}
      tabindex={-1}
    >
      <AlertCard card={toCardModel(alert)} styling="classes" channel={props.showChannel ? { icon: channel.icon, slug: channel.slug } : undefined} />
      <form method="post" action={`/feed/read/${alert.id}`} class="feed-read" hx-post={`/feed/read/${alert.id}`} hx-target="closest .feed-entry" hx-swap="outerHTML">
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="read" value={alert.isRead ? '0' : '1'} />
        {props.showChannel ? null : <input type="hidden" name="single" value="1" />}
        {props.manager ? (
          <a class="button ghost small danger" href={`/feed/delete/${alert.id}`} aria-label={`Delete “${'title' in alert ? alert.title : 'message'}”`}>
            Delete
          </a>
        ) : null}
        <button type="submit" class="button ghost small" data-action="toggle-read">
          {alert.isRead ? 'Mark unread' : 'Mark read'}
        </button>
      </form>
    </li>
  );
}

export function feedPageView(c: Context<DashEnv>, o: { channels: ChannelView[]; state: FeedState; feed: FeedPage }) {
  const total = o.channels.reduce((n, ch) => n + ch._count.alerts, 0);
  const s = o.state;
  const heading = s.scope.kind === 'all' ? 'All channels' : s.scope.kind === 'unread' ? 'Unread' : `${s.scope.channel.icon} ${s.scope.channel.name}`;
  const channelId = s.scope.kind === 'channel' ? s.scope.channel.id : undefined;
  const csrf = c.get('csrfToken');
  return page(
    c,
    total > 0 ? `(${total}) ${heading}` : heading,
    'feed',
    <>
      <link rel="stylesheet" href={asset('alert-card.css')} />
      <link rel="stylesheet" href={asset('feed.css')} />
      <script src={asset('feed.js')} defer></script>
      <script src={asset('feed-live.js')} defer></script>
      <div class="feed-layout" data-feed-channel={channelId ?? ''}>
        <Sidebar channels={o.channels} state={s} total={total} />
        <section class="feed-main" aria-labelledby="feed-heading">
          <div class="feed-head">
            <h1 id="feed-heading">{heading}</h1>
            {/* Shown by feed-live.js when the browser can still be asked (a permission prompt needs a click). */}
            <button type="button" class="button ghost small" id="enable-notifications" hidden>
              Enable browser notifications
            </button>
            <form method="post" action="/feed/read-all" class="feed-read-all">
              <Csrf token={csrf} />
              {channelId ? <input type="hidden" name="channel" value={channelId} /> : null}
              <input type="hidden" name="back" value={feedUrl(s)} />
              <button type="submit" class="button small">
                {channelId ? 'Mark channel read' : 'Mark all read'}
              </button>
            </form>
          </div>
          {c.req.query('deleted') ? <Notice>Alert deleted.</Notice> : null}
          <Filters state={s} />
          <p id="feed-live" class="visually-hidden" aria-live="polite"></p>
          {o.feed.items.length === 0 ? (
            <p class="muted feed-empty">{s.unreadOnly || s.scope.kind === 'unread' ? 'Nothing unread. ' : 'No alerts yet.'}</p>
          ) : null}
          <ol class="feed-list" aria-label="Alerts, newest first">
            <FeedItems feed={o.feed} state={s} csrfToken={csrf} manager={isManager(c.get('workspace')?.role)} />
          </ol>
        </section>
      </div>
      <dialog id="shortcuts" class="shortcuts" aria-labelledby="shortcuts-title">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <dl>
          <dt><kbd>j</kbd> / <kbd>k</kbd></dt>
          <dd>Next / previous card</dd>
          <dt><kbd>o</kbd></dt>
          <dd>Open the card's link (and mark it read)</dd>
          <dt><kbd>e</kbd></dt>
          <dd>Mark read / unread</dd>
          <dt><kbd>?</kbd></dt>
          <dd>This list</dd>
        </dl>
        <button type="button" class="button small" data-close>
          Close
        </button>
      </dialog>
    </>,
  );
}
