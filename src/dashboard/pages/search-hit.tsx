import type { HighlightedText, SearchHighlights } from '../../domain/alert-store.js';
import type { AlertView } from '../../domain/alert-view.js';
import type { ChannelView } from '../../domain/read-api.js';
import { highlightHtml } from '../../domain/search-highlight.js';
import { toCardModel } from '../../alert-card/index.js';
import { escapeHtml } from '../../lib/html.js';
import { cachedCardHtml } from '../views/card-cache.js';

export interface SearchHitData {
  alert: AlertView;
  channel: ChannelView;
  highlights: SearchHighlights | undefined;
}

const levelName = (l: string) => l[0] + l.slice(1).toLowerCase();

/** Highlighted text from the index (escaped, found words in <mark>), or the plain text when the index gave none. */
const marked = (h: HighlightedText | undefined, fallback: string) => (h && h.text !== '' ? highlightHtml(h) : escapeHtml(fallback));

/**
 * One result as HTML: where and when, the title, an excerpt and the actor with
 * the found words marked, and the whole card (with its read control) one click
 * away. Built as a string around the shared card (the same markup the JSX gave):
 * a page holds 25 of these, and JSX nodes for every span and mark cost more
 * than the search that found them. Every value is escaped here; only
 * highlightHtml's output and the card's rendering go in as markup.
 */
export function searchHitHtml(hit: SearchHitData, csrfToken: string | undefined, back: string): string {
  const { alert, channel, highlights: h } = hit;
  const card = toCardModel(alert);
  const chat = 'author' in alert;
  // A chat message has no title: its author (where the index marks a found name) heads the result.
  const title = chat ? marked(h?.actor, alert.author.name) : marked(h?.title, alert.title);
  // The actor only when a word was found there (the card shows it in full).
  const actor = !chat && h && h.actor.ranges.length > 0 ? h.actor : undefined;
  const id = escapeHtml(alert.id);
  const read = alert.isRead ? 'true' : 'false';
  const time = escapeHtml(card.createdAt.text);
  return (
    `<li class="feed-entry search-hit tone-${card.kind === 'alert' ? card.tone : 'neutral'}" id="alert-${id}" data-alert-id="${id}" data-channel-id="${escapeHtml(channel.id)}" data-read="${read}" tabindex="-1">` +
    `<p class="search-meta"><span aria-hidden="true">${escapeHtml(channel.icon)}</span> #${escapeHtml(channel.slug)} · <time datetime="${escapeHtml(card.createdAt.iso)}" title="${time}">${time}</time>` +
    `<span class="search-level">${escapeHtml('level' in alert ? levelName(alert.level) : alert.author.role)}</span>` +
    (alert.isRead ? '' : '<span class="search-unread">unread</span>') +
    `</p><h2 class="search-title">${title}</h2>` +
    (h && h.body.text !== '' ? `<p class="search-excerpt">${marked(h.body, '')}</p>` : '') +
    (actor ? `<p class="search-actor">by ${marked(actor, '')}</p>` : '') +
    '<details class="search-card"><summary>Show the whole alert</summary>' +
    cachedCardHtml(alert, { icon: channel.icon, slug: channel.slug }, true) +
    `<form method="post" action="/feed/read/${id}" class="feed-read">` +
    (csrfToken ? `<input type="hidden" name="_csrf" value="${escapeHtml(csrfToken)}"/>` : '') +
    `<input type="hidden" name="read" value="${alert.isRead ? '0' : '1'}"/><input type="hidden" name="back" value="${escapeHtml(back)}"/>` +
    `<button type="submit" class="button ghost small" data-action="toggle-read">${alert.isRead ? 'Mark unread' : 'Mark read'}</button></form></details></li>`
  );
}
