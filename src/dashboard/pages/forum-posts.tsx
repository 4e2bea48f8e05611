import type { Context } from 'hono';
import type { ThreadView } from '../../domain/chat/threads.js';
import type { ChannelView } from '../../domain/read-api.js';
import type { DashEnv } from '../http/env.js';
import { page } from '../views/render.js';

const timeText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

export interface ForumPostsView {
  channel: ChannelView;
  sort: 'activity' | 'reactions';
  tag: string | undefined;
  page: { threads: ThreadView[]; nextCursor: string | null };
}

/** The posts list's URL for a sort, tag and cursor: every view is a plain link. */
export function postsUrl(channel: ChannelView, q: { sort: string; tag?: string | undefined; cursor?: string | null }): string {
  const params = new URLSearchParams();
  if (q.sort !== 'activity') params.set('sort', q.sort);
  if (q.tag) params.set('tag', q.tag);
  if (q.cursor) params.set('cursor', q.cursor);
  const qs = params.toString();
  return `/feed/c/${encodeURIComponent(channel.slug)}/posts${qs ? `?${qs}` : ''}`;
}

/** A forum channel's posts, one dense row each: title, tag chips, votes, replies and last activity. */
export function forumPostsPage(c: Context<DashEnv>, v: ForumPostsView) {
  const { channel } = v;
  const tags = [...new Set(v.page.threads.flatMap((t) => t.tags))].sort();
  if (v.tag && !tags.includes(v.tag)) tags.unshift(v.tag);
  return page(
    c,
    `Posts of ${channel.name}`,
    'feed',
    <section class="forum-posts" aria-labelledby="posts-title">
      <h1 id="posts-title">
        <span aria-hidden="true">{channel.icon}</span> Posts of {channel.name}
      </h1>
      <p>
        <a href={`/feed/c/${encodeURIComponent(channel.slug)}`}>Back to the channel's messages</a>
      </p>
      <form method="get" action={postsUrl(channel, { sort: 'activity' })} class="posts-filters">
        <label for="posts-sort">Sort by</label>
        <select id="posts-sort" name="sort">
          <option value="activity" selected={v.sort === 'activity'}>
            Latest activity
          </option>
          <option value="reactions" selected={v.sort === 'reactions'}>
            Most votes
          </option>
        </select>
        <label for="posts-tag">Tag</label>
        <input id="posts-tag" name="tag" value={v.tag ?? ''} list="posts-tags" maxlength={100} />
        <datalist id="posts-tags">
          {tags.map((t) => (
            <option value={t} />
          ))}
        </datalist>
        <button type="submit" class="button small">
          Show posts
        </button>
      </form>
      {v.page.threads.length === 0 ? (
        <p class="empty">{v.tag ? `No posts tagged “${v.tag}”.` : 'No threads or forum posts yet: they appear here once members start one in Discord.'}</p>
      ) : (
        <ol class="post-list" aria-label={v.sort === 'reactions' ? 'Posts, most votes first' : 'Posts, latest activity first'}>
          {v.page.threads.map((t) => (
            <PostRow thread={t} />
          ))}
        </ol>
      )}
      {v.page.nextCursor ? (
        <p>
          <a href={postsUrl(channel, { sort: v.sort, tag: v.tag, cursor: v.page.nextCursor })}>Older posts</a>
        </p>
      ) : null}
    </section>,
  );
}

function PostRow(props: { thread: ThreadView }) {
  const t = props.thread;
  // The starter message counts as one of the thread's messages: the rest are its replies.
  const replies = Math.max(0, t.messageCount - (t.starterAlertId ? 1 : 0));
  return (
    <li class="post-row" data-thread-id={t.id}>
      <span class="post-title">{t.name}</span>
      {t.tags.length ? (
        <span class="post-tags">
          {t.tags.map((tag) => (
            <span class="ab-tag-chip">{tag}</span>
          ))}
        </span>
      ) : null}
      <span class="post-stats">
        <span>
          {t.reactionCount} {t.reactionCount === 1 ? 'vote' : 'votes'}
        </span>
        {' · '}
        <span>
          {replies} {replies === 1 ? 'reply' : 'replies'}
        </span>
        {t.lastMessageAt ? (
          <>
            {' · '}
            <time datetime={t.lastMessageAt}>last activity {timeText(t.lastMessageAt)}</time>
          </>
        ) : null}
      </span>
    </li>
  );
}
