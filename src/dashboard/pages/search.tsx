import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { AlertLevel } from '../../domain/alert-store.js';
import type { ChannelView } from '../../domain/read-api.js';
import type { DashEnv } from '../http/env.js';
import { LoadMore, Notice } from '../views/components.js';
import { page } from '../views/render.js';
import { LEVELS } from './feed.js';
import { FeedAssets, Sidebar } from './feed-sidebar.js';
import { searchHitHtml, type SearchHitData } from './search-hit.js';
import { ShortcutsDialog } from './shortcuts.js';

export interface SearchState {
  q: string;
  level?: AlertLevel | undefined;
  /** The channel filter (a visible channel), or every channel. */
  channel?: ChannelView | undefined;
}

export interface SearchResults {
  hits: SearchHitData[];
  nextCursor: string | null;
}

/** The search page's URL for a state: filters are query parameters, so every result page is a plain link. */
export function searchUrl(state: SearchState, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ q: state.q });
  if (state.level) params.set('level', state.level);
  if (state.channel) params.set('channel', state.channel.slug);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return `/search?${params.toString()}`;
}

const levelName = (l: string) => l[0] + l.slice(1).toLowerCase();

/** A page of results and the "Older results" link that loads the next (htmx swaps it for the page, like the feed). */
export function SearchItems(props: { results: SearchResults; state: SearchState; csrfToken: string }) {
  const next = props.results.nextCursor;
  const back = searchUrl(props.state);
  return (
    <>
      {raw(props.results.hits.map((hit) => searchHitHtml(hit, props.csrfToken, back)).join(''))}
      {next ? <LoadMore href={searchUrl(props.state, { cursor: next })} fragmentHref={searchUrl(props.state, { cursor: next, fragment: '1' })} label="Older results" /> : null}
    </>
  );
}

function SyntaxHelp() {
  return (
    <section class="search-help" aria-labelledby="search-help-title">
      <h2 id="search-help-title">How to search</h2>
      <ul>
        <li>
          Every word must occur: <code>deploy frankfurt</code> finds alerts with both words, in the title, message, fields, actor or chat text.
        </li>
        <li>
          A trailing <code>*</code> finds words that start with it: <code>pay*</code> finds payment and payout.
        </li>
        <li>
          Quotes find a phrase, word for word: <code>"payment failed"</code>.
        </li>
        <li>Case and accents do not matter; everything else is plain text (no operators).</li>
      </ul>
    </section>
  );
}

function Filters(props: { state: SearchState; channels: ChannelView[] }) {
  const s = props.state;
  return (
    <form
      method="get"
      action="/search"
      class="feed-filters"
      hx-get="/search"
      hx-target="#search-results"
      hx-select="#search-results"
      hx-swap="outerHTML"
      hx-push-url="true"
      hx-select-oob="#top-search"
    >
      <input type="hidden" name="q" value={s.q} />
      <span class="filter-pair">
        <label for="search-level">Level</label>
        <select id="search-level" name="level" data-autosubmit disabled={Boolean(s.channel?.chat)}>
          <option value="">All levels</option>
          {LEVELS.map((l) => (
            <option value={l} selected={s.level === l}>
              {levelName(l)}
            </option>
          ))}
        </select>
      </span>
      <span class="filter-pair">
        <label for="search-channel">Channel</label>
        <select id="search-channel" name="channel" data-autosubmit>
          <option value="">All channels</option>
          {props.channels.map((ch) => (
            <option value={ch.slug} selected={s.channel?.id === ch.id}>
              {ch.name}
            </option>
          ))}
        </select>
      </span>
      <button type="submit" class="button small js-hide">
        Apply
      </button>
    </form>
  );
}

export function searchPageView(c: Context<DashEnv>, o: { channels: ChannelView[]; state: SearchState; results: SearchResults | null; error?: string | undefined }, status: 200 | 400 = 200) {
  const total = o.channels.reduce((n, ch) => n + ch._count.alerts, 0);
  const s = o.state;
  const csrf = c.get('csrfToken');
  const searched = o.results !== null;
  const keep: Record<string, string> = {};
  if (s.level) keep.level = s.level;
  if (s.channel) keep.channel = s.channel.slug;
  const heading = s.q.trim() ? `Search: ${s.q}` : 'Search';
  return page(
    c,
    total > 0 ? `(${total}) ${heading}` : heading,
    'feed',
    <>
      <FeedAssets />
      <div class="feed-layout search-layout">
        <Sidebar channels={o.channels} total={total} />
        <section class="feed-main" aria-labelledby="feed-heading">
          <div class="feed-head">
            <h1 id="feed-heading">{s.q.trim() ? <>Results for “{s.q}”</> : 'Search'}</h1>
          </div>
          {s.q.trim() ? <Filters state={s} channels={o.channels} /> : null}
          <div id="search-results">
            {o.error ? <Notice kind="error">{o.error}</Notice> : null}
            {searched && o.results!.hits.length === 0 ? (
              <p class="feed-empty search-empty">
                Nothing found{s.level || s.channel ? ' with these filters' : ''}. Try fewer words, a prefix such as <code>deploy*</code>
                {s.level || s.channel ? (
                  <>
                    , or <a href={searchUrl({ q: s.q })}>search every channel and level</a>
                  </>
                ) : null}
                .
              </p>
            ) : null}
            {/* Always there (even empty): feed.js binds the keyboard to it. */}
            <ol class="feed-list" aria-label="Search results, newest first">
              {o.results ? <SearchItems results={o.results} state={s} csrfToken={csrf} /> : null}
            </ol>
            {!searched || o.results!.hits.length === 0 ? <SyntaxHelp /> : null}
          </div>
        </section>
      </div>
      <ShortcutsDialog />
    </>,
    status,
    { search: { q: s.q, keep } },
  );
}
