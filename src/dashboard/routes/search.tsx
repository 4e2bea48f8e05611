import { Hono } from 'hono';
import type { AlertLevel } from '../../domain/alert-store.js';
import { AppError, notFound } from '../../domain/errors.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { requireSession } from '../http/session.js';
import { LEVELS } from '../pages/feed.js';
import { SearchItems, searchPageView, type SearchResults, type SearchState } from '../pages/search.js';
import { sessionPrincipal } from './feed.js';

/** Results per page, as the feed. */
export const SEARCH_PAGE_SIZE = 25;

const isLevel = (v: string): v is AlertLevel => (LEVELS as readonly string[]).includes(v);

/**
 * GET /search: the dashboard's full-text search. The read API's use case with
 * the session as principal (the same visibility rule as GET /api/search), the
 * found words marked by services.search.searchHighlighted. A plain GET form, so it
 * works without JavaScript; htmx swaps the results and loads older pages.
 */
export function searchRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const { services } = deps;
  r.use('/search', requireSession(deps));

  r.get('/search', async (c) => {
    const p = sessionPrincipal(c);
    const channels = await services.readApi.listChannels(p);
    const q = (c.req.query('q') ?? '').slice(0, 1000);
    const levelRaw = c.req.query('level') || undefined;
    if (levelRaw !== undefined && !isLevel(levelRaw)) throw new AppError('invalid-query', `level must be one of ${LEVELS.join(', ')}`);
    const ref = c.req.query('channel') || undefined;
    const channel = ref === undefined ? undefined : channels.find((ch) => ch.slug === ref || ch.id === ref);
    if (ref !== undefined && !channel) throw notFound('channel');
    // As on the feed: a chat-connected channel's messages have no level, so the filter is dropped there, not refused.
    const state: SearchState = { q, level: channel?.chat ? undefined : levelRaw, channel };
    if (q.trim() === '') return searchPageView(c, { channels, state, results: null });

    let results: SearchResults;
    try {
      const found = await services.search.searchHighlighted(p, { q, channel: channel?.id, level: state.level, cursor: c.req.query('cursor') || undefined, limit: SEARCH_PAGE_SIZE });
      const byId = new Map(found.highlights.map((m) => [m.alertId, m]));
      const channelById = new Map(channels.map((ch) => [ch.id, ch]));
      results = {
        hits: found.alerts.flatMap((alert) => {
          const ch = channelById.get(alert.channelId);
          return ch ? [{ alert, channel: ch, highlights: byId.get(alert.id) }] : [];
        }),
        nextCursor: found.nextCursor,
      };
    } catch (err) {
      // A query the syntax refuses (too long, too many words) is said next to the box, with the help.
      if (err instanceof AppError && err.code === 'invalid-query') {
        if (c.req.query('fragment') === '1') throw err;
        return searchPageView(c, { channels, state, results: null, error: err.detail }, 400);
      }
      throw err;
    }
    if (c.req.query('fragment') === '1') return c.html(<SearchItems results={results} state={state} csrfToken={c.get('csrfToken')} />);
    return searchPageView(c, { channels, state, results });
  });
  return r;
}
