import type { Context } from 'hono';
import type { AlertView } from '../../domain/alert-view.js';
import type { ChannelView } from '../../domain/read-api.js';
import type { DashEnv } from '../http/env.js';
import { page } from '../views/render.js';
import { FeedAssets } from './feed-sidebar.js';
import { FeedEntry, threadUrl } from './feed-entry.js';

export interface ChatThreadView {
  channel: ChannelView;
  threadId: string;
  /** The thread's messages, oldest first; the first is its head (the starter when stored). */
  messages: AlertView[];
  hasMore: boolean;
  /** The alert id this page starts after (a later page of a long thread), or undefined for its start. */
  after?: string | undefined;
  csrfToken: string;
  manager: boolean;
}

const nameOf = (v: ChatThreadView) => {
  const first = v.messages[0];
  return first && 'thread' in first && first.thread ? first.thread.name : 'Thread';
};

/** The thread's page after the last of these messages: where a long thread goes on. */
const laterUrl = (v: ChatThreadView) => `${threadUrl(v.channel, v.threadId)}?after=${encodeURIComponent(v.messages.at(-1)!.id)}`;

/** The replies swapped in under a head message, in place of its "N replies" link (htmx). */
export function ThreadReplies(props: ChatThreadView) {
  const replies = props.messages.slice(1);
  return (
    <div class="thread-fold is-open">
      <ol class="thread-replies" aria-label={`Replies in “${nameOf(props)}”, oldest first`}>
        {replies.map((alert) => (
          <FeedEntry alert={alert} channel={props.channel} csrfToken={props.csrfToken} manager={props.manager} row={false} />
        ))}
      </ol>
      <a class="thread-fold-open" href={props.hasMore ? laterUrl(props) : threadUrl(props.channel, props.threadId)}>
        {props.hasMore ? 'Later replies on the thread’s page' : 'Open the thread on its own page'}
      </a>
    </div>
  );
}

/** A thread on its own page: the "N replies" link's target without script, and a shareable place for one thread. */
export function chatThreadPage(c: Context<DashEnv>, v: ChatThreadView) {
  const name = nameOf(v);
  return page(
    c,
    `${name} · ${v.channel.name}`,
    'feed',
    <>
      <FeedAssets />
      <section class="chat-thread feed-main" aria-labelledby="thread-title" data-feed-channel={v.channel.id}>
        <p class="thread-back">
          <a href={`/feed/c/${encodeURIComponent(v.channel.slug)}`}>
            <span aria-hidden="true">←</span> {v.channel.icon} {v.channel.name}
          </a>
        </p>
        <h1 id="thread-title">{name}</h1>
        <p class="muted">
          {v.after === undefined
            ? v.hasMore
              ? `The first ${v.messages.length} messages, oldest first`
              : `${v.messages.length - 1} ${v.messages.length === 2 ? 'reply' : 'replies'}`
            : v.messages.length === 0
              ? 'No later messages.'
              : `${v.messages.length} later ${v.messages.length === 1 ? 'message' : 'messages'}, oldest first`}
        </p>
        <ol class="feed-list" aria-label="The thread’s messages, oldest first" data-density="cards">
          {v.messages.map((alert) => (
            <FeedEntry alert={alert} channel={v.channel} csrfToken={v.csrfToken} manager={v.manager} row={false} />
          ))}
        </ol>
        {v.hasMore || v.after !== undefined ? (
          <nav class="thread-pages" aria-label="The thread’s pages">
            {v.after !== undefined ? <a href={threadUrl(v.channel, v.threadId)}>From the first message</a> : null}
            {v.hasMore ? <a class="button" href={laterUrl(v)}>Later messages</a> : null}
          </nav>
        ) : null}
      </section>
    </>,
  );
}
