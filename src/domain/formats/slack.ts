import { z } from 'zod';
import { AppError } from '../errors.js';
import type { AlertCommand } from './command.js';
import { levelFromSlackColour } from './colour-level.js';
import { finishDraft, noContent } from './draft.js';
import { isPlainObject, larr, lbool, lobj, lstr } from './lenient.js';
import { maskedLink, mrkdwnToText, replaceShortcodes } from './mrkdwn.js';
import { firstLine, paragraphs } from './text.js';

/** Slack text objects and elements: `text` is a string (mrkdwn context) or a text object (buttons, headers). */
const Element = lobj({
  type: lstr,
  text: z.unknown().optional(),
  url: lstr,
  image_url: lstr,
  elements: z.unknown().optional(),
  name: lstr,
  user_id: lstr,
  channel_id: lstr,
});
type Element = NonNullable<z.output<typeof Element>>;

const Block = lobj({
  type: lstr,
  text: z.unknown().optional(),
  fields: larr(z.unknown()),
  elements: larr(z.unknown()),
  accessory: Element,
  image_url: lstr,
});

const Attachment = lobj({
  color: lstr,
  title: lstr,
  title_link: lstr,
  pretext: lstr,
  text: lstr,
  fallback: lstr,
  footer: lstr,
  image_url: lstr,
  thumb_url: lstr,
  author_name: lstr,
  author_link: lstr,
  author_icon: lstr,
  fields: larr(lobj({ title: lstr, value: lstr, short: lbool })),
});

/** Slack's incoming-webhook body, read leniently. */
export const SlackBody = z.object({
  text: lstr,
  blocks: larr(Block),
  attachments: larr(Attachment),
  username: lstr,
  icon_emoji: lstr,
});

/** A text object's readable text: mrkdwn is converted, plain_text only gets its shortcodes (Slack's `emoji: true`). */
function textOf(v: unknown): string {
  if (typeof v === 'string') return mrkdwnToText(v);
  if (!isPlainObject(v) || typeof v.text !== 'string') return '';
  return v.type === 'plain_text' ? replaceShortcodes(v.text) : mrkdwnToText(v.text);
}

/** Flattens a rich_text block (sections, lists, quotes, preformatted) to lines of text; depth is bounded. */
function richText(v: unknown, depth = 0): string {
  if (depth > 6 || !isPlainObject(v)) return '';
  switch (v.type) {
    case 'text':
      return typeof v.text === 'string' ? v.text : '';
    case 'link':
      return typeof v.url === 'string' ? maskedLink(typeof v.text === 'string' ? v.text : undefined, v.url) : '';
    case 'emoji':
      return typeof v.name === 'string' ? replaceShortcodes(`:${v.name}:`) : '';
    case 'user':
      return typeof v.user_id === 'string' ? `@${v.user_id}` : '';
    case 'channel':
      return typeof v.channel_id === 'string' ? `#${v.channel_id}` : '';
    case 'broadcast':
      return typeof v.range === 'string' ? `@${v.range}` : '';
  }
  if (!Array.isArray(v.elements)) return '';
  const parts = v.elements.slice(0, 500).map((e) => richText(e, depth + 1));
  // Sections run inline; lists, quotes and the block itself put their children on lines.
  return v.type === 'rich_text_section' ? parts.join('') : parts.filter(Boolean).join('\n');
}

interface Collected {
  header?: string;
  message: string[];
  fields: { label: string; value: string; inline: boolean }[];
  link?: { url: string; text?: string };
  images: string[];
}

function button(el: Element | undefined, c: Collected) {
  if (!c.link && el?.type === 'button' && el.url) c.link = { url: el.url, text: textOf(el.text) || undefined };
}

/** A section field: `*Label*\nvalue` is a field, anything without a line break is message text. */
function sectionField(v: unknown, c: Collected) {
  if (!isPlainObject(v) || typeof v.text !== 'string') return;
  const raw = v.text;
  const nl = raw.indexOf('\n');
  if (nl === -1) {
    c.message.push(textOf(v));
    return;
  }
  const label = mrkdwnToText(raw.slice(0, nl)).trim();
  const value = v.type === 'plain_text' ? raw.slice(nl + 1) : mrkdwnToText(raw.slice(nl + 1));
  if (label === '') c.message.push(value);
  else c.fields.push({ label, value, inline: true });
}

function blocks(body: z.output<typeof SlackBody>, c: Collected) {
  for (const b of body.blocks) {
    switch (b.type) {
      case 'header':
        if (c.header === undefined) c.header = textOf(b.text);
        else c.message.push(textOf(b.text));
        break;
      case 'section':
        c.message.push(textOf(b.text));
        for (const f of b.fields) sectionField(f, c);
        button(b.accessory, c);
        if (b.accessory?.type === 'image' && b.accessory.image_url) c.images.push(b.accessory.image_url);
        break;
      case 'context':
        c.message.push(
          b.elements
            .map((e) => (isPlainObject(e) && e.type !== 'image' ? textOf(e) : ''))
            .filter(Boolean)
            .join(' · '),
        );
        break;
      case 'actions':
        for (const e of b.elements) button(Element.parse(e), c);
        break;
      case 'image':
        if (b.image_url) c.images.push(b.image_url);
        break;
      case 'rich_text':
        c.message.push(richText({ type: 'rich_text', elements: b.elements }));
        break;
    }
  }
}

/**
 * Maps Slack's incoming-webhook body. Title: the first header block, else the
 * first attachment title, else the first line of the text (or of whatever the
 * blocks and attachments say). The whole text is the message, followed by the
 * blocks' and attachments' text. Level: the first attachment colour.
 */
export function mapSlack(rawBody: unknown): AlertCommand {
  if (!isPlainObject(rawBody)) throw new AppError('invalid-payload', 'the body must be a JSON object');
  const body = SlackBody.parse(rawBody);
  const text = body.text !== undefined ? mrkdwnToText(body.text) : '';
  if (text.trim() === '' && body.blocks.length === 0 && body.attachments.length === 0) {
    throw noContent('a Slack message needs text, blocks or attachments');
  }

  const c: Collected = { message: [], fields: [], images: [] };
  blocks(body, c);
  let attachmentTitle: string | undefined;
  let colour: string | undefined;
  let author: { name?: string; url?: string; avatarUrl?: string } | undefined;
  for (const a of body.attachments) {
    const title = a.title !== undefined ? mrkdwnToText(a.title).trim() : '';
    if (attachmentTitle === undefined && title !== '') {
      attachmentTitle = title;
      if (!c.link && a.title_link) c.link = { url: a.title_link };
    } else if (title !== '') {
      c.message.push(title);
    }
    colour ??= a.color;
    if (!author && (a.author_name || a.author_icon)) author = { name: a.author_name, url: a.author_link, avatarUrl: a.author_icon };
    c.message.push(mrkdwnToText(a.pretext ?? ''));
    // `fallback` is the plain summary for clients that cannot show attachments: only used when nothing else is there.
    c.message.push(mrkdwnToText(a.text ?? (title === '' && a.fields.length === 0 ? (a.fallback ?? '') : '')));
    for (const f of a.fields) {
      const label = f.title !== undefined ? mrkdwnToText(f.title).trim() : '';
      const value = f.value !== undefined ? mrkdwnToText(f.value) : '';
      if (label === '') c.message.push(value);
      else c.fields.push({ label, value, inline: f.short ?? false });
    }
    if (a.footer) c.message.push(mrkdwnToText(a.footer));
    c.images.push(...[a.image_url, a.thumb_url].filter((u): u is string => u !== undefined));
  }

  // Senders often put the same words in `text` (the notification fallback) and in a block: say them once.
  const rest = c.message.map((m) => m.trim()).filter((m) => m !== '');
  const message = paragraphs([rest.includes(text.trim()) ? '' : text, ...rest]);
  const title = c.header?.trim() || attachmentTitle || firstLine(text) || firstLine(message) || c.fields[0]?.label || '';
  if (title === '') throw noContent('the Slack message has no text to show');

  const { payload, attachmentUrls } = finishDraft(
    {
      title,
      level: levelFromSlackColour(colour),
      emoji: body.icon_emoji,
      message,
      fields: c.fields,
      linkUrl: c.link?.url,
      linkText: c.link?.text,
      source: body.username,
      actor: author,
      metadata: { via: 'slack' },
    },
    c.images,
  );
  return { kind: 'alert', payload, attachmentUrls };
}
