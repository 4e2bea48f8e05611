import { createHash } from 'node:crypto';
import { raw } from 'hono/html';
import type { AlertView } from '../../domain/alert-view.js';
import { AlertCard, toCardModel, type ChannelLabel } from '../../alert-card/index.js';

/** Cards kept: several first pages of every channel; about 3 KB each. */
const MAX_CARDS = 2000;
const cards = new Map<string, string>();

/**
 * An alert's card as page HTML, rendered once per content. The card is a pure
 * function of the alert's public view (read state included) and its channel
 * label, so the key is a digest of exactly those: a changed alert (a workflow
 * step, an edit, a read) has a new key and can never be served stale, and
 * nothing of one user reaches another that the user would not render alike.
 * Most page views show the same newest cards (reloads, other readers, the
 * live stream), and rendering them was the largest part of a feed page's time.
 */
export function CachedCard(props: { alert: AlertView; channel: ChannelLabel }) {
  return raw(cachedCardHtml(props.alert, props.channel));
}

/** The same card as a string; `flat` (the search page's card, inside its result) is a variant of its own. */
export function cachedCardHtml(alert: AlertView, channel: ChannelLabel, flat = false): string {
  const key = createHash('sha1').update(`${flat ? 'flat' : 'card'}\u0000${channel.icon}\u0000${channel.slug}\u0000`).update(JSON.stringify(alert)).digest('base64');
  let html = cards.get(key);
  if (html === undefined) {
    html = String(<AlertCard card={toCardModel(alert)} styling="classes" channel={channel} flat={flat} />);
    if (cards.size >= MAX_CARDS) cards.delete(cards.keys().next().value!);
  } else {
    cards.delete(key); // most recently used goes last
  }
  cards.set(key, html);
  return html;
}
