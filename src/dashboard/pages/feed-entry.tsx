import type { AlertView } from '../../domain/alert-view.js';
import type { ChannelView } from '../../domain/read-api.js';
import type { ThreadFold } from '../feed/feed-query.js';
import { CachedCard } from '../views/card-cache.js';
import { EntryActions, type EntryAction } from '../views/entry-actions.js';
import { LifecycleStatus, lifecycleEntryActions } from '../views/lifecycle-actions.js';

/** Consecutive chat messages of one author closer than this read as one turn (Slack groups alike). */
export const CHAT_GROUP_MS = 5 * 60_000;

type Level = Extract<AlertView, { level: string }>['level'];

/** The compact row's level mark: a shape per level and the word for screen readers, so colour never carries it alone. */
const LEVEL_MARK: Record<Level, { glyph: string; word: string; tone: string }> = {
  INFO: { glyph: 'i', word: 'Info', tone: 'info' },
  SUCCESS: { glyph: '✓', word: 'Success', tone: 'success' },
  WARNING: { glyph: '!', word: 'Warning', tone: 'warning' },
  ERROR: { glyph: '×', word: 'Error', tone: 'error' },
};

const timeText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** What names an entry in a control's label: the alert's title, or the chat message's author. */
export function entryLabel(alert: AlertView): string {
  return 'title' in alert ? `“${alert.title}”` : `message from ${alert.author.name}`;
}

/**
 * The actions of an entry's header slot, in order: the alert's lifecycle (acknowledge, resolve,
 * snooze, reopen), then read/unread; Delete stays last, as the one secondary action. Chat messages
 * are conversation, not incidents: they get no lifecycle buttons (the API still accepts them).
 */
export function feedEntryActions(alert: AlertView, o: { manager: boolean; now?: number }): (EntryAction & { ariaLabel?: string })[] {
  const actions: (EntryAction & { ariaLabel?: string })[] = [
    ...('title' in alert ? lifecycleEntryActions(alert, { now: o.now ?? Date.now(), entryLabel: entryLabel(alert) }) : []),
    {
      kind: 'post',
      action: `/feed/read/${alert.id}`,
      fields: { read: alert.isRead ? '0' : '1' },
      label: alert.isRead ? 'Mark unread' : 'Mark read',
      icon: alert.isRead ? 'dot' : 'check',
      shortcut: 'e',
      name: 'toggle-read',
    },
  ];
  // Where it went (routes, e-mail, push): the alert's delivery log, for every reader (each sees what the API shows them).
  if ('title' in alert) actions.push({ kind: 'link', href: `/alerts/${alert.id}/deliveries`, label: 'Deliveries', ariaLabel: `Deliveries of ${entryLabel(alert)}`, icon: 'send', secondary: true });
  if (o.manager) {
    actions.push({ kind: 'link', href: `/feed/delete/${alert.id}`, label: 'Delete', ariaLabel: `Delete ${entryLabel(alert)}`, icon: 'trash', secondary: true });
  }
  return actions;
}

/** The compact density's one line: level mark, emoji, title, channel, time and the unread dot; a click opens the card in place. */
function CompactRow(props: { alert: AlertView; channel: ChannelView }) {
  const { alert, channel } = props;
  const mark = 'level' in alert ? LEVEL_MARK[alert.level] : null;
  return (
    <button type="button" class="entry-row" aria-expanded="false" aria-controls={`body-${alert.id}`}>
      {mark ? (
        <span class={`row-level ab-tone-${mark.tone}`}>
          <span aria-hidden="true">{mark.glyph}</span>
          <span class="visually-hidden">{mark.word}:</span>
        </span>
      ) : (
        <span class="row-level ab-tone-neutral" aria-hidden="true">
          {'author' in alert ? alert.author.name.slice(0, 1).toUpperCase() : ''}
        </span>
      )}
      <span class="row-title">
        {'title' in alert ? (
          <>
            {alert.emoji ? <span aria-hidden="true">{alert.emoji} </span> : null}
            {alert.title}
          </>
        ) : (
          <>
            <b>{alert.author.name}</b> {alert.message ?? ''}
          </>
        )}
      </span>
      <span class="row-channel">
        <span aria-hidden="true">{channel.icon}</span> #{channel.slug}
      </span>
      <time class="row-time" datetime={alert.createdAt} title={timeText(alert.createdAt)}>
        {timeText(alert.createdAt)}
      </time>
      <span class="unread-dot">
        <span class="visually-hidden">, unread</span>
      </span>
    </button>
  );
}

/**
 * One alert or chat message of the feed, in both densities: the compact row and the card
 * (feed.css shows one or the other from the list's density, so a live or swapped entry is the
 * same markup whatever the reader chose), the header's actions and the unread dot.
 * `continues`: a chat message that continues its author's turn above (name and avatar hidden).
 * `row: false` leaves the compact row out of a page shown as cards (its weight is for the list
 * only; switching to the list loads the page again). Single entries (live, swapped) keep it: the
 * live stream's HTML is shared by a browser's tabs, whatever density each shows.
 */
export function FeedEntry(props: { alert: AlertView; channel: ChannelView; csrfToken: string; manager?: boolean; continues?: boolean; row?: boolean; now?: number; fold?: ThreadFold }) {
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
      data-author={'author' in alert ? alert.author.id : undefined}
      data-time={alert.createdAt}
      data-continues={props.continues ? 'true' : undefined}
      tabindex={-1}
    >
      {/* First, floated right: the card's header (or the compact row) makes room for it, however many actions it holds. */}
      <EntryActions actions={feedEntryActions(alert, { manager: props.manager ?? false, now })} csrfToken={props.csrfToken} entryLabel={entryLabel(alert)} />
      {props.row === false ? null : <CompactRow alert={alert} channel={channel} />}
      <div class="entry-body" id={`body-${alert.id}`}>
        <span class="unread-dot card-dot" title="Unread">
          <span class="visually-hidden">Unread</span>
        </span>
        {/* Always labelled with its channel: a single channel's page hides the label with CSS (feed.css), so a card
            rendered for the shared live stream, a reloaded one and one swapped in after a read button are identical. */}
        <CachedCard alert={alert} channel={{ icon: channel.icon, slug: channel.slug }} />
        {/* The shared lifecycle (docs/handling-alerts.md): who handles it; its buttons sit in the header's slot above. */}
        <LifecycleStatus alert={alert} now={now} />
        {props.fold ? <ThreadFoldLink alert={alert} channel={channel} fold={props.fold} /> : null}
      </div>
    </li>
  );
}

/** Which entries continue the chat turn above them (same channel and author, at most CHAT_GROUP_MS apart, no thread fold between); newest first. */
export function chatContinuations(items: { alert: AlertView; channel: ChannelView; fold?: ThreadFold }[]): boolean[] {
  return items.map((item, i) => {
    const above = items[i - 1];
    if (!above || !('author' in item.alert) || !('author' in above.alert)) return false;
    // A message under a folded thread starts a turn of its own: it does not belong to the thread.
    if (above.fold) return false;
    if (above.channel.id !== item.channel.id || above.alert.author.id !== item.alert.author.id) return false;
    return Math.abs(Date.parse(above.alert.createdAt) - Date.parse(item.alert.createdAt)) <= CHAT_GROUP_MS;
  });
}

/** A thread's page: every message of it, oldest first (the fold's link without script). */
export function threadUrl(channel: Pick<ChannelView, 'slug'>, threadId: string): string {
  return `/feed/c/${encodeURIComponent(channel.slug)}/threads/${threadId}`;
}

/**
 * "N replies" under a thread's head message (Slack's fold): htmx swaps the replies in place of the
 * link; without script the link opens the thread's page.
 */
function ThreadFoldLink(props: { alert: AlertView; channel: ChannelView; fold: ThreadFold }) {
  const { fold } = props;
  const url = threadUrl(props.channel, fold.threadId);
  const name = 'thread' in props.alert && props.alert.thread ? props.alert.thread.name : 'the thread';
  const count = `${fold.replies} ${fold.replies === 1 ? 'reply' : 'replies'}`;
  return (
    <div class="thread-fold">
      <a class="thread-fold-link" href={url} hx-get={`${url}?fragment=1`} hx-target="closest .thread-fold" hx-swap="outerHTML" aria-label={`${count} in “${name}”`}>
        <span class="thread-fold-count">{count}</span>
        <span class="thread-fold-last">
          last <time datetime={fold.lastReplyAt}>{timeText(fold.lastReplyAt)}</time>
        </span>
      </a>
    </div>
  );
}
