import type { Context } from 'hono';
import type { AlertLevel } from '../../domain/alert-store.js';
import type { ChannelView } from '../../domain/read-api.js';
import type { FeedPage } from '../feed/feed-query.js';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import { CachedCard } from '../views/card-cache.js';
import { LoadMore, Notice } from '../views/components.js';
import { statusFilterText, type StatusFilter } from '../../domain/feed-preferences.js';
import { LifecycleActions, LifecycleStatus } from '../views/lifecycle-actions.js';
import { FeedAssets, Sidebar } from './feed-sidebar.js';
import { ShortcutsDialog } from './shortcuts.js';
import { Csrf } from '../views/layout.js';
import { page } from '../views/render.js';

export const LEVELS: readonly AlertLevel[] = ['INFO', 'SUCCESS', 'WARNING', 'ERROR'];

/** Which feed a page shows: every channel, the unread view across channels, or one channel. */
import type { FeedScope } from './feed-sidebar.js';

export type { FeedScope };

export interface FeedState {
  scope: FeedScope;
  level?: AlertLevel | undefined;
  /** Remembered per user; `all` is the feed as it always was. */
  status: StatusFilter;
  unreadOnly: boolean;
  membersOnly: boolean;
}

/** The feed's URL for a state: filters are query parameters, so every view is a plain link that works without JS. */
export function feedUrl(state: FeedState, extra: Record<string, string> = {}): string {
  const path = state.scope.kind === 'all' ? '/feed' : state.scope.kind === 'unread' ? '/feed/unread' : `/feed/c/${state.scope.channel.slug}`;
  const params = new URLSearchParams();
  if (state.level) params.set('level', state.level);
  if (state.status !== 'all') params.set('status', statusFilterText(state.status));
  if (state.unreadOnly && state.scope.kind !== 'unread') params.set('unread', '1');
  if (state.membersOnly) params.set('members', '1');
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

const STATUS_CHOICES: [string, string][] = [
  ['all', 'All statuses'],
  ['open', 'Open'],
  ['open,acknowledged', 'Open and acknowledged'],
  ['acknowledged', 'Acknowledged'],
  ['resolved', 'Resolved'],
];

function Filters(props: { state: FeedState }) {
  const s = props.state;
  const chat = s.scope.kind === 'channel' && s.scope.channel.chat;
  return (
    <form method="get" action={feedUrl({ ...s, level: undefined, status: 'all', unreadOnly: false, membersOnly: false })} class="feed-filters">
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
      <label for="feed-status">Status</label>
      <select id="feed-status" name="status" data-autosubmit>
        {STATUS_CHOICES.map(([value, label]) => (
          <option value={value} selected={statusFilterText(s.status) === value}>
            {label}
          </option>
        ))}
      </select>
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
  return (
    <>
      {props.feed.items.map(({ alert, channel }) => (
        <FeedEntry alert={alert} channel={channel} csrfToken={props.csrfToken} manager={props.manager} />
      ))}
      {props.feed.nextCursor ? (
        <LoadMore
          href={feedUrl(props.state, { before: props.feed.nextCursor })}
          fragmentHref={feedUrl(props.state, { before: props.feed.nextCursor, fragment: '1' })}
          label="Load older"
        />
      ) : null}
    </>
  );
}

/** One card with its read control: a form (works without JS) that htmx posts in place. */
export function FeedEntry(props: { alert: FeedPage['items'][number]['alert']; channel: ChannelView; csrfToken: string; manager?: boolean; now?: number }) {
  const { alert, channel } = props;
  const now = props.now ?? Date.now();
  return (
    <li
      class="feed-entry"
      id={`alert-${alert.id}`}
      data-alert-id={alert.id}
      data-channel-id={channel.id}
      data-read={alert.isRead ? 'true' : 'false'}
      data-status={alert.status}
      data-level={'level' in alert ? alert.level : undefined}
      data-role={'author' in alert ? alert.author.role : undefined}
      tabindex={-1}
    >
      {/* Always labelled with its channel: a single channel's page hides the label with CSS (feed.css), so a card
          rendered for the shared live stream, a reloaded one and one swapped in after a read button are identical. */}
      <CachedCard alert={alert} channel={{ icon: channel.icon, slug: channel.slug }} />
      <LifecycleStatus alert={alert} now={now} />
      <div class="feed-actions">
      <LifecycleActions alert={alert} csrfToken={props.csrfToken} now={now} />
      <form method="post" action={`/feed/read/${alert.id}`} class="feed-read" hx-post={`/feed/read/${alert.id}`} hx-target="closest .feed-entry" hx-swap="outerHTML">
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="read" value={alert.isRead ? '0' : '1'} />
        {props.manager ? (
          <a class="button ghost small danger" href={`/feed/delete/${alert.id}`} aria-label={`Delete “${'title' in alert ? alert.title : 'message'}”`}>
            Delete
          </a>
        ) : null}
        <button type="submit" class="button ghost small" data-action="toggle-read">
          {alert.isRead ? 'Mark unread' : 'Mark read'}
        </button>
      </form>
      </div>
    </li>
  );
}

/**
 * What an empty first page says. A filtered page scans a bounded number of rows and may stop short with a
 * cursor: then it is still looking (the "Load older" below loads itself as it comes into view; feed.css
 * hides this line once a card arrives, and feed.js puts `data-done-text` in once nothing is left to load).
 */
function emptyText(s: FeedState, moreToScan: boolean): string {
  const filtered = s.unreadOnly || s.scope.kind === 'unread' || s.membersOnly;
  if (filtered && moreToScan) return 'None among the newest alerts; looking further back…';
  if (s.unreadOnly || s.scope.kind === 'unread') return 'Nothing unread.';
  return s.status === 'all' ? 'No alerts yet.' : 'No alerts with this status.';
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
      <FeedAssets live />
      <div class="feed-layout" data-feed-channel={channelId ?? ''}>
        <Sidebar channels={o.channels} scope={s.scope} total={total} />
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
            <p class="muted feed-empty" data-done-text={emptyText(s, false)}>
              {emptyText(s, o.feed.nextCursor !== null)}
            </p>
          ) : null}
          <ol class="feed-list" aria-label="Alerts, newest first">
            <FeedItems feed={o.feed} state={s} csrfToken={csrf} manager={isManager(c.get('workspace')?.role)} />
          </ol>
        </section>
      </div>
      <ShortcutsDialog />
    </>,
  );
}
