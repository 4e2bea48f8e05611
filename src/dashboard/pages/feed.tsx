import type { Context } from 'hono';
import { ChannelSettingsLink, EmailBanner } from '../views/feed-extras.js';
import type { AlertLevel } from '../../domain/alert-store.js';
import type { ChannelView } from '../../domain/read-api.js';
import type { FeedPage } from '../feed/feed-query.js';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import { LoadMore } from '../views/components.js';
import { statusFilterText, type StatusFilter } from '../../domain/feed-preferences.js';
import { FeedAssets, Sidebar } from './feed-sidebar.js';
import { chatContinuations, FeedEntry } from './feed-entry.js';
import { Onboarding, type OnboardingProps } from './feed-onboarding.js';
import type { FeedDensity } from '../../domain/user-settings.js';
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
  ['open,acknowledged', 'Not resolved'],
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
        // A label and its select wrap together (filter-pair), never a label at a line's end and its select below.
        <span class="filter-pair">
          <label for="feed-level">Level</label>
          <select id="feed-level" name="level" data-autosubmit>
            <option value="">All levels</option>
            {LEVELS.map((l) => (
              <option value={l} selected={s.level === l}>
                {l[0] + l.slice(1).toLowerCase()}
              </option>
            ))}
          </select>
        </span>
      )}
      <span class="filter-pair">
        <label for="feed-status">Status</label>
        <select id="feed-status" name="status" data-autosubmit>
          {STATUS_CHOICES.map(([value, label]) => (
            <option value={value} selected={statusFilterText(s.status) === value}>
              {label}
            </option>
          ))}
        </select>
      </span>
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
export function FeedItems(props: { feed: FeedPage; state: FeedState; csrfToken: string; manager: boolean; density: FeedDensity }) {
  const continues = chatContinuations(props.feed.items);
  return (
    <>
      {props.feed.items.map(({ alert, channel, fold }, i) => (
        <FeedEntry alert={alert} channel={channel} csrfToken={props.csrfToken} manager={props.manager} continues={continues[i]} row={props.density === 'compact'} fold={fold} />
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

/** Cards or a compact list: a POST that stores the reader's choice and comes back to the feed drawn that way (Post/Redirect/Get). */
function DensityToggle(props: { density: FeedDensity; csrf: string; back: string }) {
  const option = (value: FeedDensity, label: string) => (
    <button type="submit" name="density" value={value} class="segment" aria-pressed={props.density === value ? 'true' : 'false'} data-density={value}>
      {label}
    </button>
  );
  return (
    <form method="post" action="/feed/density" class="density-toggle" role="group" aria-label="Feed density">
      <Csrf token={props.csrf} />
      <input type="hidden" name="back" value={props.back} />
      {option('cards', 'Cards')}
      {option('compact', 'List')}
    </form>
  );
}

export function feedPageView(c: Context<DashEnv>, o: { channels: ChannelView[]; state: FeedState; feed: FeedPage; density: FeedDensity; onboarding?: OnboardingProps | undefined }) {
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
      <FeedAssets />
      <div class="feed-layout" data-feed-channel={channelId ?? ''} data-stream="">
        <Sidebar channels={o.channels} scope={s.scope} total={total} />
        <section class="feed-main" aria-labelledby="feed-heading">
          <div class="feed-head">
            <h1 id="feed-heading">{heading}</h1>
            <div class="feed-head-actions">
              {/* Shown by feed-live.js when the browser can still be asked (a permission prompt needs a click). */}
              <button type="button" class="button ghost small" id="enable-notifications" hidden>
                Enable browser notifications
              </button>
              <ChannelSettingsLink c={c} channelId={channelId} channelName={s.scope.kind === 'channel' ? s.scope.channel.name : undefined} />
              {/* A chat channel's threads and forum posts, as a list to sort by votes (issue 29). */}
              {s.scope.kind === 'channel' && s.scope.channel.chat ? (
                <a class="button ghost small" href={`/feed/c/${encodeURIComponent(s.scope.channel.slug)}/posts`}>
                  Threads and posts
                </a>
              ) : null}
              <DensityToggle density={o.density} csrf={csrf} back={feedUrl(s)} />
              <form method="post" action="/feed/read-all" class="feed-read-all">
                <Csrf token={csrf} />
                {channelId ? <input type="hidden" name="channel" value={channelId} /> : null}
                <input type="hidden" name="back" value={feedUrl(s)} />
                <button type="submit" class="button small">
                  {channelId ? 'Mark channel read' : 'Mark all read'}
                </button>
              </form>
            </div>
          </div>
          <EmailBanner c={c} />
          <Filters state={s} />
          <p id="feed-live" class="visually-hidden" aria-live="polite"></p>
          {/* feed-view.js shows it when alerts arrive above a reader who has scrolled down. */}
          <button type="button" class="new-alerts" id="new-alerts" hidden>
            <span aria-hidden="true">↑</span> <span class="new-alerts-text"></span>
          </button>
          {o.feed.items.length === 0 && !o.onboarding ? (
            <p class="muted feed-empty" data-done-text={emptyText(s, false)}>
              {emptyText(s, o.feed.nextCursor !== null)}
            </p>
          ) : null}
          <ol class="feed-list" aria-label="Alerts, newest first" data-density={o.density}>
            <FeedItems feed={o.feed} state={s} csrfToken={csrf} manager={isManager(c.get('workspace')?.role)} density={o.density} />
          </ol>
          {o.onboarding ? <Onboarding {...o.onboarding} /> : null}
        </section>
      </div>
      <ShortcutsDialog />
    </>,
  );
}
