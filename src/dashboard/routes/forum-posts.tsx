import { Hono } from 'hono';
import { AppError, notFound } from '../../domain/errors.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { isManager, requireSession } from '../http/session.js';
import { chatThreadPage, ThreadReplies, type ChatThreadView } from '../pages/chat-thread.js';
import { forumPostsPage } from '../pages/forum-posts.js';
import { sessionPrincipal } from './feed.js';

/** Posts per page of a forum channel's list. */
export const POSTS_PAGE_SIZE = 50;
/** Messages of one thread shown at once, in place or on its page. */
export const THREAD_PAGE_SIZE = 100;

/**
 * A chat channel's threads and forum posts as a list (issue 29): sorted by activity or votes (the
 * starter message's reactions), filtered by a tag. A GET form: reading changes nothing, so no PRG.
 */
export function forumPostRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const { services } = deps;
  r.use('/feed/c/:channel/posts', requireSession(deps));
  r.get('/feed/c/:channel/posts', async (c) => {
    const p = sessionPrincipal(c);
    const ref = c.req.param('channel');
    const channel = (await services.readApi.listChannels(p)).find((ch) => ch.slug === ref || ch.id === ref);
    if (!channel || !channel.chat) throw notFound('channel');
    const sortRaw = c.req.query('sort') || 'activity';
    if (sortRaw !== 'activity' && sortRaw !== 'reactions') {
      throw new AppError('invalid-query', 'sort must be activity or reactions', { details: [{ code: 'invalid_value', message: 'sort must be activity or reactions', path: ['sort'] }] });
    }
    const tag = (c.req.query('tag') ?? '').trim().slice(0, 100) || undefined;
    const cursor = c.req.query('cursor') || undefined;
    const page = await services.chatThreads.list(p, channel.id, { sort: sortRaw, limit: POSTS_PAGE_SIZE, ...(tag ? { tag } : {}), ...(cursor ? { cursor } : {}) });
    return forumPostsPage(c, { channel, sort: sortRaw, tag, page });
  });

  // One thread, oldest first: the replies in place under the head message (htmx), or the thread's own page.
  r.use('/feed/c/:channel/threads/:thread', requireSession(deps));
  r.get('/feed/c/:channel/threads/:thread', async (c) => {
    const p = sessionPrincipal(c);
    const ref = c.req.param('channel');
    const channel = (await services.readApi.listChannels(p)).find((ch) => ch.slug === ref || ch.id === ref);
    if (!channel || !channel.chat) throw notFound('channel');
    const after = c.req.query('after') || undefined;
    const thread = await services.chatThreads.messages(p, channel.id, c.req.param('thread'), THREAD_PAGE_SIZE, after);
    const view: ChatThreadView = {
      channel,
      threadId: c.req.param('thread'),
      after,
      messages: await services.readApi.render(p.userId, channel.id, thread.rows),
      hasMore: thread.hasMore,
      csrfToken: c.get('csrfToken'),
      manager: isManager(c.get('workspace')?.role),
    };
    if (c.req.query('fragment') === '1') return c.html(<ThreadReplies {...view} />);
    return chatThreadPage(c, view);
  });
  return r;
}
